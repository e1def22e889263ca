"""`AlbertAttention`: post-LN multi-head self-attention sub-layer."""

from __future__ import annotations

import math

import keras
from keras import ops

from albert_tf.layer_config import ArgumentsConfig, store_arguments
from albert_tf.models.chains import UsesChains
from albert_tf.models.positions import gather_positions
from albert_tf.models.sub_layers import dense, layer_norm

# Added to the scores of padded keys, as in BERT/ALBERT. Applied in float32, so
# it is safe under float16 and bfloat16 compute dtypes.
MASK_ADDER = -10000.0


def attention_mask_adder(input_mask) -> keras.KerasTensor:
    """[batch, seq] 1/0 mask -> [batch, 1, 1, seq] float32 adder for the scores."""
    mask = ops.cast(input_mask, "float32")
    return ops.expand_dims(ops.expand_dims((1.0 - mask) * MASK_ADDER, 1), 1)


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertAttention(UsesChains, ArgumentsConfig, keras.layers.Layer):
    """Self-attention, output projection, dropout, residual and LayerNorm.

    Variables (kernels are [in, out], matching the original checkpoints):
      * `query`, `key`, `value`: Dense H -> H (`.kernel` [H, H], `.bias` [H]),
      * `output_dense`: Dense H -> H (original `attention_1/output/dense`),
      * `layer_norm`: `.gamma`, `.beta` [H] (original `LayerNorm` after attention).

    Call: `layer(hidden_states [B, T, H], input_mask [B, T] (1 = real token))`.
    With `query_positions` [B, Q], only those rows attend (to all T keys) and
    the output is [B, Q, H]: the same values as the full output gathered at
    those rows, for less compute (the last layer of pretraining needs only the
    masked positions and [CLS]). With one query row ([CLS] alone) no keys or values are
    formed: the query is taken into the input space instead (`_attend_from_one_query`).
    `input_projection` (a Dense E -> H) marks `hidden_states` as [B, T, E] embeddings whose
    projection is the layer's input: the queries, keys and values take them through the
    product of the two kernels (`_project`), for less compute.

    Example:
    >>> layer = AlbertAttention(hidden_size=16, num_attention_heads=2)
    >>> x = keras.ops.ones((2, 5, 16))
    >>> tuple(layer(x, keras.ops.ones((2, 5), "int32")).shape)
    (2, 5, 16)
    """

    def __init__(
        self,
        hidden_size: int,
        num_attention_heads: int,
        attention_probs_dropout_prob: float = 0.0,
        hidden_dropout_prob: float = 0.0,
        initializer_range: float = 0.02,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if hidden_size % num_attention_heads:
            raise ValueError(
                f"AlbertAttention: hidden_size ({hidden_size}) must be divisible by "
                f"num_attention_heads ({num_attention_heads})."
            )
        store_arguments(self, locals())
        self.head_size = hidden_size // num_attention_heads

        dtype = self.dtype_policy
        self.query = dense(hidden_size, initializer_range, dtype, "query")
        self.key = dense(hidden_size, initializer_range, dtype, "key")
        self.value = dense(hidden_size, initializer_range, dtype, "value")
        self.output_dense = dense(hidden_size, initializer_range, dtype, "output_dense")
        self.layer_norm = layer_norm(dtype)
        self.probs_dropout = keras.layers.Dropout(
            attention_probs_dropout_prob, dtype=dtype, name="probs_dropout"
        )
        self.output_dropout = keras.layers.Dropout(
            hidden_dropout_prob, dtype=dtype, name="output_dropout"
        )

    def build(self, hidden_states_shape, input_mask_shape=None):
        shape = (None, None, self.hidden_size)
        for layer in (self.query, self.key, self.value, self.output_dense, self.layer_norm):
            layer.build(shape)
        self.built = True

    def _split_heads(self, x, batch, seq):
        return ops.reshape(x, (batch, seq, self.num_attention_heads, self.head_size))

    def call(
        self,
        hidden_states,
        input_mask=None,
        query_positions=None,
        training=None,
        input_projection=None,
    ):
        embedded = None
        if input_projection is not None:  # `hidden_states` are the E-wide embeddings.
            embedded, hidden_states = hidden_states, input_projection(hidden_states)
        batch, seq = ops.shape(hidden_states)[0], ops.shape(hidden_states)[1]
        queries_from = hidden_states
        if query_positions is not None:
            queries_from = gather_positions(hidden_states, query_positions)
        num_queries = ops.shape(queries_from)[1]
        adder = None if input_mask is None else attention_mask_adder(input_mask)
        if query_positions is not None and queries_from.shape[1] == 1:
            context = self._attend_from_one_query(
                self.query(queries_from), hidden_states, adder, training
            )
        else:
            from_embedded = embedded if query_positions is None else None
            query = self._project(self.query, queries_from, from_embedded, input_projection)
            key = self._project(self.key, hidden_states, embedded, input_projection)
            value = self._project(self.value, hidden_states, embedded, input_projection)
            query = self._split_heads(query, batch, num_queries)
            key = self._split_heads(key, batch, seq)
            value = self._split_heads(value, batch, seq)

            scores = ops.einsum("btnd,bsnd->bnts", query, key)
            # Softmax in float32 (bfloat16 aside): the -10000 adder and exp are unsafe in float16.
            scale = 1.0 / math.sqrt(self.head_size)
            probs = self.chains.scaled_masked_softmax(scores, scale, adder)
            probs = self.probs_dropout(probs, training=training)

            context = ops.einsum("bnts,bsnd->btnd", probs, value)
        context = ops.reshape(context, (batch, num_queries, self.hidden_size))
        if training and self.hidden_dropout_prob > 0:
            output = self.output_dropout(self.output_dense(context), training=training)
            return self.chains.layer_norm_of_sum(self.layer_norm, output, queries_from)
        # The output projection's bias is added with the residual, before the LayerNorm.
        output = ops.matmul(context, self.output_dense.kernel)
        return self.chains.layer_norm_of_sum(
            self.layer_norm, output, queries_from, bias=self.output_dense.bias
        )

    @staticmethod
    def _project(layer, inputs, embedded, input_projection):
        """`layer(inputs)`; from the E-wide `embedded` when given (`inputs` is their projection).

        `(e P + b) W + c = e (P W) + (b W + c)`: E/H of the per-token work (1/6 for ALBERT-base),
        `P W` once per step.
        """
        if embedded is None:
            return layer(inputs)
        kernel = ops.matmul(input_projection.kernel, layer.kernel)
        bias = ops.matmul(ops.expand_dims(input_projection.bias, 0), layer.kernel)[0]
        return ops.matmul(embedded, kernel) + (bias + layer.bias)

    def _attend_from_one_query(self, query, hidden_states, adder, training):
        """The context [B, 1, N, D] of one query row [B, 1, H] without keys or values.

        Keys and values are never formed: `q . (x W_k + b_k) = (q W_k^T) . x + q . b_k` and
        `sum_t p_t (x_t W_v + b_v) = (sum_t p_t x_t) W_v + (sum_t p_t) b_v`, per head. With one
        query ([CLS], the classifiers' last block) that replaces the two [T, H] x [H, H]
        projections by [N, H]-sized work: for ALBERT-base at length 128, 1.4% of a fine-tuning
        step's matmuls.
        """
        heads = (self.num_attention_heads, self.head_size)
        query = ops.reshape(query, (-1, *heads))
        key_kernel = ops.reshape(self.key.kernel, (self.hidden_size, *heads))
        value_kernel = ops.reshape(self.value.kernel, (self.hidden_size, *heads))
        query_in = ops.einsum("bnd,hnd->bnh", query, key_kernel)
        scores = ops.einsum("bnh,bth->bnt", query_in, hidden_states)
        scores += ops.einsum("bnd,nd->bn", query, ops.reshape(self.key.bias, heads))[..., None]
        scale = 1.0 / math.sqrt(self.head_size)
        probs = self.chains.scaled_masked_softmax(ops.expand_dims(scores, 2), scale, adder)
        probs = self.probs_dropout(probs, training=training)[:, :, 0, :]
        mixed = ops.einsum("bnt,bth->bnh", probs, hidden_states)
        value_bias = ops.reshape(self.value.bias, heads)
        if training and self.attention_probs_dropout_prob > 0:  # Dropped probs sum not to 1.
            value_bias = ops.sum(probs, -1)[..., None] * value_bias
        context = ops.einsum("bnh,hnd->bnd", mixed, value_kernel) + value_bias
        return ops.expand_dims(context, 1)

    def compute_output_shape(
        self, hidden_states_shape, input_mask_shape=None, query_positions_shape=None
    ):
        if query_positions_shape is not None:
            return (*query_positions_shape, hidden_states_shape[-1])
        return hidden_states_shape
