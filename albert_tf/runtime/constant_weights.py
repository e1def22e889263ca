"""`AlbertEncoder`'s inference forward written the way oneDNN fuses it, on constant weights.

TensorFlow's graph optimizer (grappler) rewrites a 2-D `MatMul` followed by `BiasAdd` (and a
GELU, ReLU or tanh, and an `Add` of the residual) into one fused matmul. When its weights are
graph constants, oneDNN reorders them once into its fastest layout (AMX tiles where the CPU has
them) and keeps them; with variables it reorders them on every call. So this forward is used only
where the weights are constants: `frozen_weights.constant_weights_function` installs it in the
encoder's one hook (`albert_tf.models.forms.encoder_inference`) while it traces a served call.

It reads the blocks' weights itself (`ConstantWeights`) and runs each stretch of layers that
share blocks as a `tf.while_loop`: unrolled, every layer would be a copy of the block's ops and
oneDNN would keep a reordered copy of the shared weights for each; in a loop there is one. A
constant is made in the graph of the op that uses it (the loop body has its own): oneDNN caches
a weight only when the constant is in that graph, not captured from an enclosing one.

What changes against the model's own forward is where values are rounded to the compute dtype:
the bias, the activation and the residual are applied to the matmul's float32 accumulator, and
the sum is rounded once before the LayerNorm (float32 statistics inside); the softmax's inputs,
`scores / sqrt(head_size) + mask`, are exact in bfloat16 for power-of-two head sizes. Outputs
agree with the reference to bfloat16 rounding (`tests/runtime/test_frozen_weights.py`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.models.activations import activation_math
from albert_tf.models.attention import AlbertAttention, attention_mask_adder
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.feed_forward import AlbertFeedForward
from albert_tf.models.transformer_block import AlbertTransformerBlock

# `AlbertConfig.hidden_act` -> the TensorFlow op grappler fuses into the matmul (same math as
# `activations.ACTIVATIONS`, which serves any name missing here, unfused).
_FUSABLE: dict[str, Callable[[tf.Tensor], tf.Tensor]] = {
    "gelu": lambda x: tf.nn.gelu(x, approximate=True),
    "gelu_new": lambda x: tf.nn.gelu(x, approximate=True),
    "gelu_exact": lambda x: tf.nn.gelu(x, approximate=False),
    "relu": tf.nn.relu,
    "tanh": tf.tanh,
    "linear": tf.identity,
}

# Float dtype -> the integer dtype of the same width.
_SAME_WIDTH_INTEGER = {tf.bfloat16: tf.int16, tf.float16: tf.int16, tf.float32: tf.int32}


class ConstantWeights:
    """Weight values as constants of the graph being traced, one per (graph, variable).

    Args:
        values: `id(variable)` -> its value (read once, when the served function is made).
    """

    def __init__(self, values: Mapping[int, np.ndarray]):
        self._values = values
        self._constants: dict[tuple[int, int], tf.Tensor] = {}

    def __call__(self, variable: keras.Variable) -> tf.Tensor:
        """`variable`'s value as a constant of the current graph (in the variable's dtype)."""
        key = (id(tf.compat.v1.get_default_graph()), id(variable))
        if key not in self._constants:
            self._constants[key] = graph_constant(self._values[id(variable)])
        return self._constants[key]


def graph_constant(value: np.ndarray) -> tf.Tensor:
    """`value` as a Const node of the graph being traced; vectors behind a PlaceholderWithDefault.

    Grappler folds constant expressions away: a bias of zeros would vanish and a LayerNorm scale
    of ones with it, and with them the `MatMul + BiasAdd` and LayerNorm patterns oneDNN fuses (a
    freshly initialized model would serve slower than from its variables). A
    PlaceholderWithDefault is never folded; the matrices, whose being constant is the point,
    stay plain constants.
    """
    constant = tf.constant(value)
    if constant.shape.rank >= 2:
        return constant
    return tf.raw_ops.PlaceholderWithDefault(input=constant, shape=constant.shape)


def constant_weights_encoder(
    weights: ConstantWeights,
) -> Callable[[AlbertEncoder, dict[str, Any]], dict[str, Any]]:
    """`AlbertEncoder.call(inputs, training=False)` with the blocks' weights from `weights`.

    The embeddings and the pooler are called as layers: they read their weights however the
    caller provides them (`frozen_weights` maps them to constants of the outer graph).
    """

    def forward(encoder: AlbertEncoder, inputs: dict[str, Any]) -> dict[str, Any]:
        x = encoder.embeddings(inputs["input_word_ids"], inputs["input_type_ids"], training=False)
        adder = attention_mask_adder(inputs["input_mask"])
        outputs = {}
        if encoder.output_all_layers:  # Every layer's output: unrolled.
            layers = []
            for row in encoder.layer_blocks:
                for block in row:
                    x = _block(block, x, adder, weights)
                    layers.append(x)
            outputs["encoder_outputs"] = layers
        else:
            for row, count in runs_of_shared_rows(encoder.layer_blocks):
                x = _apply_runs(row, count, x, adder, weights)
        outputs["sequence_output"] = x
        outputs["pooled_output"] = encoder.pooler(x[:, 0, :])
        return outputs

    return forward


def runs_of_shared_rows(
    layer_blocks: list[list[AlbertTransformerBlock]],
) -> list[tuple[list[AlbertTransformerBlock], int]]:
    """Consecutive layers applying the same blocks, as (the blocks, how many layers)."""
    runs: list[tuple[list[AlbertTransformerBlock], int]] = []
    for row in layer_blocks:
        if runs and list(map(id, runs[-1][0])) == list(map(id, row)):
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((row, 1))
    return runs


def _apply_runs(
    row: list[AlbertTransformerBlock],
    count: int,
    x: tf.Tensor,
    adder: tf.Tensor,
    weights: ConstantWeights,
) -> tf.Tensor:
    """`row`'s blocks applied `count` times: once inline, more often in a `tf.while_loop`."""

    def apply_row(x):
        for block in row:
            y = _block(block, x, adder, weights)
            y.set_shape(x.shape)  # The loop needs the hidden size known.
            x = y
        return x

    if count == 1:
        return apply_row(x)
    _, x = tf.while_loop(lambda i, _: i < count, lambda i, x: (i + 1, apply_row(x)), (0, x))
    return x


def _block(
    block: AlbertTransformerBlock, x: tf.Tensor, adder: tf.Tensor, weights: ConstantWeights
) -> tf.Tensor:
    return _feed_forward(block.ffn, _attention(block.attention, x, adder, weights), weights)


def _attention(
    layer: AlbertAttention, x: tf.Tensor, adder: tf.Tensor, weights: ConstantWeights
) -> tf.Tensor:
    """`layer(x, mask, training=False)`: heads moved by integer transposes, oneDNN's softmax."""
    batch, seq = tf.shape(x)[0], tf.shape(x)[1]
    heads, size = layer.num_attention_heads, layer.head_size

    def split(dense: keras.layers.Dense) -> tf.Tensor:  # [B, T, H] -> [B, N, T, D]
        projected = tf.reshape(fused_dense(x, dense, weights), [batch, seq, heads, size])
        return transpose_bits(projected, [0, 2, 1, 3])

    query, key, value = split(layer.query), split(layer.key), split(layer.value)
    scores = tf.matmul(query, key, transpose_b=True)
    logits = scores * tf.cast(1.0 / math.sqrt(size), scores.dtype) + tf.cast(adder, scores.dtype)
    context = transpose_bits(tf.matmul(tf.nn.softmax(logits, axis=-1), value), [0, 2, 1, 3])
    context = tf.reshape(context, [batch, seq, layer.hidden_size])
    output = fused_dense(context, layer.output_dense, weights, residual=x)
    return onednn_layer_norm(output, layer.layer_norm, weights)


def _feed_forward(layer: AlbertFeedForward, x: tf.Tensor, weights: ConstantWeights) -> tf.Tensor:
    """`layer(x, training=False)` as two fused matmuls and oneDNN's LayerNorm."""
    hidden = fused_dense(x, layer.intermediate, weights, layer.hidden_act)
    output = fused_dense(hidden, layer.output_dense, weights, residual=x)
    return onednn_layer_norm(output, layer.layer_norm, weights)


def fused_dense(
    x: tf.Tensor,
    layer: keras.layers.Dense,
    weights: Callable[[keras.Variable], tf.Tensor],
    activation: str = "linear",
    residual: tf.Tensor | None = None,
) -> tf.Tensor:
    """`activation(layer(x)) (+ residual)` for `x` [..., in] as 2-D MatMul + BiasAdd (+ ...).

    The residual is added in 2-D too, so that oneDNN adds it inside the matmul. `weights` gives
    a variable's value; the weights are computed in `x`'s dtype.

    Example:
    >>> layer = keras.layers.Dense(2, bias_initializer="ones")
    >>> x = tf.ones([1, 3, 4])
    >>> _ = layer(x)
    >>> bool(tf.reduce_all(tf.abs(fused_dense(x, layer, tf.convert_to_tensor) - layer(x)) < 1e-6))
    True
    """
    rows = tf.reshape(x, [-1, x.shape[-1]])
    kernel, bias = (tf.cast(weights(w), x.dtype) for w in (layer.kernel, layer.bias))
    y = tf.nn.bias_add(tf.matmul(rows, kernel), bias)
    y = _FUSABLE.get(activation, activation_math(activation))(y)
    if residual is not None:
        y += tf.reshape(residual, tf.shape(y))
    return tf.reshape(y, tf.concat([tf.shape(x)[:-1], [layer.units]], axis=0))


def onednn_layer_norm(
    x: tf.Tensor,
    layer: keras.layers.LayerNormalization,
    weights: Callable[[keras.Variable], tf.Tensor],
) -> tf.Tensor:
    """`layer(x)` over the last axis, written as the graph grappler turns into `_MklLayerNorm`.

    That rewrite matches only Keras 2's LayerNormalization graph: a per-row `FusedBatchNormV3`
    with unit scale and zero offset (the rows as NCHW channels), then `* gamma + beta`; and
    only with a dynamic number of rows (static ones fold the `Fill`s into constants). This
    depends on grappler's pattern, not on any API: `tests/runtime/test_frozen_weights.py`
    checks that the optimized graph still holds `_MklLayerNorm` wherever oneDNN is on.

    Example:
    >>> layer = keras.layers.LayerNormalization(epsilon=1e-12)
    >>> x = tf.constant([[[1.0, 2.0, 3.0]]])
    >>> _ = layer(x)
    >>> out = onednn_layer_norm(x, layer, tf.convert_to_tensor)
    >>> bool(tf.reduce_all(tf.abs(out - layer(x)) < 1e-5))
    True
    """
    rows = tf.reduce_prod(tf.shape(x)[:-1])
    normalized, *_ = tf.raw_ops.FusedBatchNormV3(
        x=tf.reshape(x, [1, rows, x.shape[-1], 1]),
        scale=tf.fill([rows], 1.0),
        offset=tf.fill([rows], 0.0),
        mean=tf.constant([], tf.float32),
        variance=tf.constant([], tf.float32),
        epsilon=layer.epsilon,
        data_format="NCHW",
        is_training=True,
    )
    normalized = tf.reshape(normalized, tf.shape(x))
    gamma, beta = (tf.cast(weights(w), x.dtype) for w in (layer.gamma, layer.beta))
    return normalized * gamma + beta


def transpose_bits(x: tf.Tensor, perm: list[int]) -> tf.Tensor:
    """`tf.transpose(x, perm)`, moving `x`'s bits as integers of the same width.

    TensorFlow runs float transposes as oneDNN reorders, whose set-up costs more than the copy
    itself for one sequence's attention heads; the integer transpose is Eigen's plain copy.

    Example:
    >>> x = tf.reshape(tf.range(6, dtype=tf.float32), [1, 2, 3])
    >>> transpose_bits(x, [0, 2, 1]).numpy().tolist()
    [[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]]
    """
    integer = _SAME_WIDTH_INTEGER.get(x.dtype)
    if integer is None:
        return tf.transpose(x, perm)
    return tf.bitcast(tf.transpose(tf.bitcast(x, integer), perm), x.dtype)
