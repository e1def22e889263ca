"""`AlbertEncoder`: the ALBERT backbone with cross-layer parameter sharing."""

from __future__ import annotations

from typing import Any

import keras
from keras import ops

from albert_tf.config import AlbertConfig
from albert_tf.models.attention import AlbertAttention
from albert_tf.models.embeddings import AlbertEmbeddings
from albert_tf.models.feed_forward import AlbertFeedForward
from albert_tf.models.sub_layers import dense
from albert_tf.models.transformer_block import AlbertTransformerBlock

INPUT_NAMES = ("input_word_ids", "input_mask", "input_type_ids")


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertEncoder(keras.Model):
    """ALBERT encoder: factorized embeddings, shared Transformer blocks, pooler.

    A functional model (built in `__init__`, keras-hub style): shared layers are
    nodes called several times in the graph, so one block object applied L
    times holds one set of variables.

    Inputs: a dict of int32 `[batch, seq]` tensors `input_word_ids`,
    `input_mask` (1 = real token, 0 = padding) and `input_type_ids`.
    Outputs: a dict with `sequence_output` [B, T, H], `pooled_output` [B, H]
    and, when `output_all_layers`, `encoder_outputs`: the output of every
    applied block (L * inner_group_num entries; the last is `sequence_output`).

    Attribute structure (for checkpoint converters; kernels are [in, out]):
      * `encoder.embeddings` (`AlbertEmbeddings`):
        `.word_embeddings.embeddings` [V, E], `.position_embeddings.embeddings`
        [P, E], `.token_type_embeddings.embeddings` [T, E],
        `.layer_norm.{gamma, beta}` [E], `.projection.{kernel, bias}` [E, H], [H]
        (the original `embedding_hidden_mapping_in`; None when E == H, unless
        `config.embedding_projection == "always"`).
      * `encoder.layer_blocks[i][j]`: the `AlbertTransformerBlock` applied at
        layer i (0..L-1), inner position j (0..inner_group_num-1). Repeated
        entries are the same object.
      * `encoder.groups[g][j]`: the block of group g, inner position j, i.e.
        `layer_blocks[first layer of group g][j]`; with `sharing="all_shared"`
        these are all the blocks (the original `group_g/inner_group_j`).
      * a block: `.attention.{query, key, value, output_dense}.{kernel, bias}`,
        `.attention.layer_norm.{gamma, beta}` (original `LayerNorm`),
        `.ffn.intermediate.{kernel, bias}`, `.ffn.output_dense.{kernel, bias}`,
        `.ffn.layer_norm.{gamma, beta}` (original `LayerNorm_1`).
        With `shared_attention` (`shared_ffn`) the `.attention` (`.ffn`) objects
        of all layers of a group are the same object.
      * `encoder.pooler.{kernel, bias}` [H, H], [H] (tanh).
      * `encoder.config`: the `AlbertConfig`.

    Example:
    >>> config = AlbertConfig.preset("albert_tiny")
    >>> encoder = AlbertEncoder(config)
    >>> ids = keras.ops.ones((2, 8), "int32")
    >>> out = encoder({"input_word_ids": ids, "input_mask": ids,
    ...                "input_type_ids": keras.ops.zeros_like(ids)})
    >>> tuple(out["pooled_output"].shape)
    (2, 128)
    """

    def __init__(
        self,
        config: AlbertConfig | dict[str, Any],
        output_all_layers: bool = False,
        dtype: Any = None,
        **kwargs,
    ):
        if isinstance(config, dict):
            config = AlbertConfig.from_dict(config)
        if not isinstance(config, AlbertConfig):
            raise TypeError(
                f"AlbertEncoder: config must be an AlbertConfig or dict, got {config!r}."
            )
        # One policy object for the model and every sub-layer; `None` means the
        # global policy at construction time (what a plain Keras layer uses).
        dtype = keras.dtype_policies.get(dtype)

        # === Layers ===
        embeddings = AlbertEmbeddings(
            vocab_size=config.vocab_size,
            embedding_size=config.embedding_size,
            hidden_size=config.hidden_size,
            max_position_embeddings=config.max_position_embeddings,
            type_vocab_size=config.type_vocab_size,
            dropout_rate=config.hidden_dropout_prob,
            initializer_range=config.initializer_range,
            use_projection=config.has_embedding_projection,
            dtype=dtype,
            name="embeddings",
        )
        layer_blocks = _make_layer_blocks(config, dtype)
        pooler = dense(
            config.hidden_size, config.initializer_range, dtype, "pooler", activation="tanh"
        )

        # === Functional graph ===
        inputs = {
            name: keras.Input(shape=(None,), dtype="int32", name=name) for name in INPUT_NAMES
        }
        x = embeddings(inputs["input_word_ids"], inputs["input_type_ids"])
        encoder_outputs = []
        for block in _in_order(layer_blocks):
            x = block(x, inputs["input_mask"])
            encoder_outputs.append(x)
        outputs = {"sequence_output": x, "pooled_output": pooler(x[:, 0, :])}
        if output_all_layers:
            outputs["encoder_outputs"] = encoder_outputs
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
        # Functional.__init__ drops `dtype`: set it, so that `dtype_policy` (read by
        # the pretraining heads and by get_config) is the sub-layers' policy.
        self.dtype_policy = dtype

        # === Attributes (set after the graph so Functional tracks them) ===
        self.config = config
        self.output_all_layers = output_all_layers
        self.embeddings = embeddings
        self.layer_blocks = layer_blocks
        self.groups = _groups_of(config, layer_blocks)
        self.pooler = pooler

    def call_at_positions(
        self,
        inputs: dict[str, Any],
        positions,
        training: bool | None = None,
        fold_projection: bool = False,
    ) -> dict[str, Any]:
        """`sequence_output` only at `positions` [B, P] ([B, P, H]) and `pooled_output`.

        Same values as `call` gathered at `positions`, but the last block
        computes queries, the FFN and the LayerNorms for [CLS] and those P rows
        only (for pretraining, about 70% of one layer's work saved). With
        `fold_projection`, the first block's queries, keys and values take the E-wide
        embeddings through the product of the projection's kernel and theirs (for
        ALBERT-base, 1.8% of a step's matmuls; whether that pays depends on the batch,
        so the caller chooses).
        """
        mask = inputs["input_mask"]
        # Folded, the first block takes the E-wide embeddings through its own matmuls.
        projection = self.embeddings.projection if fold_projection else None
        x = self.embeddings(
            inputs["input_word_ids"],
            inputs["input_type_ids"],
            training=training,
            project=projection is None,
        )
        blocks = _in_order(self.layer_blocks)
        for block in blocks[:-1]:
            x = block(x, mask, training=training, input_projection=projection)
            projection = None
        positions = ops.cast(positions, "int32")
        first = ops.zeros((ops.shape(positions)[0], 1), "int32")
        x = blocks[-1](
            x,
            mask,
            ops.concatenate([first, positions], axis=1),
            training=training,
            input_projection=projection,
        )
        return {"sequence_output": x[:, 1:], "pooled_output": self.pooler(x[:, 0, :])}

    def pooled_output(self, inputs: dict[str, Any], training: bool | None = None):
        """`call(inputs)["pooled_output"]`, the last block computing the [CLS] row only.

        What sentence (pair) classifiers read. The last block's queries, output projection, FFN
        and LayerNorms run on one row instead of T, forward and backward, and its keys and
        values are never formed (`AlbertAttention._attend_from_one_query`): with the first
        block's folded projection (`call_at_positions`), for ALBERT-base at length 128, 10% of
        the model's matmul work (60.5 instead of 67.1 GFLOP per sequence).
        """
        no_positions = ops.zeros((ops.shape(inputs["input_word_ids"])[0], 0), "int32")
        outputs = self.call_at_positions(inputs, no_positions, training, fold_projection=True)
        return outputs["pooled_output"]

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": keras.dtype_policies.serialize(self.dtype_policy),
            "config": self.config.to_dict(),
            "output_all_layers": self.output_all_layers,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> AlbertEncoder:
        return cls(**config)


def _make_layer_blocks(config: AlbertConfig, dtype: Any) -> list[list[AlbertTransformerBlock]]:
    """Blocks per (layer, inner position); shared objects repeat as `sharing` says.

    The first block of each (group, inner position) makes its own sub-layers; the later layers of
    the group apply that block (`all_shared`), or blocks of their own that take its attention
    (`shared_attention`), its FFN (`shared_ffn`) or nothing (`not_shared`).
    """
    block_args = dict(
        hidden_size=config.hidden_size,
        num_attention_heads=config.num_attention_heads,
        intermediate_size=config.intermediate_size,
        hidden_act=config.hidden_act,
        hidden_dropout_prob=config.hidden_dropout_prob,
        attention_probs_dropout_prob=config.attention_probs_dropout_prob,
        initializer_range=config.initializer_range,
        dtype=dtype,
    )
    first_blocks: dict[tuple[int, int], AlbertTransformerBlock] = {}
    layer_blocks = []
    for layer in range(config.num_hidden_layers):
        group = config.group_of_layer(layer)
        row = []
        for inner in range(config.inner_group_num):
            first = first_blocks.get((group, inner))
            if first is not None and config.sharing == "all_shared":
                row.append(first)
                continue
            scope = f"group_{group}" if config.sharing == "all_shared" else f"layer_{layer}"
            block = AlbertTransformerBlock(
                **block_args,
                **_shared_sub_layers(config.sharing, first),
                name=f"{scope}_inner_group_{inner}",
            )
            first_blocks.setdefault((group, inner), block)
            row.append(block)
        layer_blocks.append(row)
    return layer_blocks


def _shared_sub_layers(
    sharing: str, first: AlbertTransformerBlock | None
) -> dict[str, AlbertAttention | AlbertFeedForward]:
    """The sub-layers a block takes from its group's `first` block (none: it makes its own)."""
    if first is not None and sharing == "shared_attention":
        return {"attention_layer": first.attention}
    if first is not None and sharing == "shared_ffn":
        return {"feed_forward_layer": first.ffn}
    return {}


def _in_order(layer_blocks: list[list[AlbertTransformerBlock]]) -> list[AlbertTransformerBlock]:
    """The blocks in the order they are applied (layer by layer, inner position by position)."""
    return [block for row in layer_blocks for block in row]


def _groups_of(
    config: AlbertConfig, layer_blocks: list[list[AlbertTransformerBlock]]
) -> list[list[AlbertTransformerBlock]]:
    first_layer_of_group: dict[int, int] = {}
    for layer in range(config.num_hidden_layers):
        first_layer_of_group.setdefault(config.group_of_layer(layer), layer)
    return [layer_blocks[first_layer_of_group[g]] for g in range(config.num_hidden_groups)]
