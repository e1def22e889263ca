"""`AlbertMaskedLMHead`: masked-LM logits with weights tied to the word embeddings."""

from __future__ import annotations

import keras
from keras import ops

from albert_tf.layer_config import ArgumentsConfig, store_arguments
from albert_tf.models.activations import activation_math
from albert_tf.models.chains import UsesChains
from albert_tf.models.positions import gather_positions
from albert_tf.models.sub_layers import dense, layer_norm


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertMaskedLMHead(UsesChains, ArgumentsConfig, keras.layers.Layer):
    """Gather, Dense H -> E with activation, LayerNorm, then x @ word_embeddings^T + bias.

    The output projection is the encoder's word embedding variable itself
    (`token_embedding.embeddings`, [V, E]), not a copy. `token_embedding` is a
    reference, so it is not part of `get_config`; the owner (e.g.
    `AlbertPretrainer`) passes it again when it rebuilds the head.

    Variables: `dense.{kernel, bias}` [H, E], [E] (original
    `cls/predictions/transform/dense`), `layer_norm.{gamma, beta}` [E],
    `output_bias` [V]. All math runs in the layer's compute dtype (e.g. bfloat16
    under `mixed_bfloat16`); the logits are float32 under any dtype policy.

    Example:
    >>> table = keras.layers.Embedding(100, 8)
    >>> table.build((None,))
    >>> head = AlbertMaskedLMHead(vocab_size=100, embedding_size=8,
    ...                           token_embedding=table)
    >>> logits = head(keras.ops.ones((2, 5, 16)), keras.ops.zeros((2, 3), "int32"))
    >>> tuple(logits.shape), keras.backend.standardize_dtype(logits.dtype)
    ((2, 3, 100), 'float32')
    """

    config_excludes = ("token_embedding",)  # A reference: the owner passes it again.

    def __init__(
        self,
        vocab_size: int,
        embedding_size: int,
        hidden_act: str = "gelu",
        initializer_range: float = 0.02,
        token_embedding: keras.layers.Embedding | None = None,
        **kwargs,
    ):
        # Variables are read in float32 (no autocast): the logits are float32.
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        store_arguments(self, locals())
        self.token_embedding = token_embedding
        activation_math(hidden_act)  # Fails early on an unknown name.
        self.dense = dense(embedding_size, initializer_range, self.dtype_policy, "dense")
        self.layer_norm = layer_norm(self.dtype_policy)

    def build(self, sequence_output_shape, masked_positions_shape=None):
        self.dense.build((None, None, sequence_output_shape[-1]))
        self.layer_norm.build((None, None, self.embedding_size))
        self.output_bias = self.add_weight(
            shape=(self.vocab_size,), initializer="zeros", name="output_bias"
        )
        self.built = True

    def call(self, sequence_output, masked_positions=None):
        if self.token_embedding is None:
            raise ValueError(
                "AlbertMaskedLMHead: no token_embedding to tie the output to; pass the "
                "encoder's `embeddings.word_embeddings` layer as `token_embedding`."
            )
        # `masked_positions=None`: `sequence_output` is already [B, P, H] at them.
        x = sequence_output
        if masked_positions is not None:
            x = gather_positions(sequence_output, masked_positions)
        x = self.layer_norm(self.chains.activation(self.hidden_act)(self.dense(x)))
        # The [B*P, E] x [E, V] product runs in the compute dtype (bf16/fp16
        # matmul units under mixed precision, like the encoder); the logits, the
        # bias add and so the softmax and loss downstream are float32.
        table = ops.cast(self.token_embedding.embeddings, self.compute_dtype)
        logits = ops.einsum("bpe,ve->bpv", ops.cast(x, self.compute_dtype), table)
        return ops.cast(logits, "float32") + ops.cast(self.output_bias, "float32")

    def compute_output_shape(self, sequence_output_shape, masked_positions_shape=None):
        if masked_positions_shape is None:
            return (*sequence_output_shape[:-1], self.vocab_size)
        return (*masked_positions_shape, self.vocab_size)
