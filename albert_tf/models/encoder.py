"""`AlbertEncoder`: the ALBERT backbone with cross-layer parameter sharing."""

from __future__ import annotations

from typing import Any

import keras
from keras import ops

from albert_tf.config import AlbertConfig
from albert_tf.models import forms
from albert_tf.models.attention import AlbertAttention
from albert_tf.models.embeddings import AlbertEmbeddings
from albert_tf.models.feed_forward import AlbertFeedForward
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
        pooler = keras.layers.Dense(
            config.hidden_size,
            activation="tanh",
            kernel_initializer=keras.initializers.TruncatedNormal(stddev=config.initializer_range),
            dtype=dtype,
            name="pooler",
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

    def call(self, inputs, training=None, mask=None):
        # The one hook for a speed-only form: the runtime's inference forward, when installed.
        inference = forms.encoder_inference(training)
        if inference is not None:
            return inference(self, inputs)
        return super().call(inputs, training=training, mask=mask)

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
        if forms.encoder_inference(training) is not None:
            # The runtime's forward serves the whole call: peeled off at [CLS], the last layer
            # would need its own copy of the shared weights (twice on disk and in memory).
            return self(inputs, training=training)["pooled_output"]
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
    """Blocks per (layer, inner position); shared objects repeat as `sharing` says."""
    sub_layer_args = dict(
        hidden_dropout_prob=config.hidden_dropout_prob,
        initializer_range=config.initializer_range,
        dtype=dtype,
    )
    block_args = dict(
        hidden_size=config.hidden_size,
        num_attention_heads=config.num_attention_heads,
        intermediate_size=config.intermediate_size,
        hidden_act=config.hidden_act,
        attention_probs_dropout_prob=config.attention_probs_dropout_prob,
        **sub_layer_args,
    )
    shared_blocks: dict[tuple[int, int], AlbertTransformerBlock] = {}
    shared_attention: dict[tuple[int, int], AlbertAttention] = {}
    shared_ffn: dict[tuple[int, int], AlbertFeedForward] = {}
    layer_blocks = []
    for layer in range(config.num_hidden_layers):
        group = config.group_of_layer(layer)
        row = []
        for inner in range(config.inner_group_num):
            key = (group, inner)
            if config.sharing == "all_shared":
                if key not in shared_blocks:
                    shared_blocks[key] = AlbertTransformerBlock(
                        **block_args, name=f"group_{group}_inner_group_{inner}"
                    )
                row.append(shared_blocks[key])
                continue
            attention = ffn = None
            if config.sharing == "shared_attention":
                if key not in shared_attention:
                    shared_attention[key] = AlbertAttention(
                        config.hidden_size,
                        config.num_attention_heads,
                        attention_probs_dropout_prob=config.attention_probs_dropout_prob,
                        name="attention",
                        **sub_layer_args,
                    )
                attention = shared_attention[key]
            elif config.sharing == "shared_ffn":
                if key not in shared_ffn:
                    shared_ffn[key] = AlbertFeedForward(
                        config.hidden_size,
                        config.intermediate_size,
                        hidden_act=config.hidden_act,
                        name="ffn",
                        **sub_layer_args,
                    )
                ffn = shared_ffn[key]
            row.append(
                AlbertTransformerBlock(
                    **block_args,
                    attention_layer=attention,
                    feed_forward_layer=ffn,
                    name=f"layer_{layer}_inner_group_{inner}",
                )
            )
        layer_blocks.append(row)
    return layer_blocks


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
