"""The forward pass written the way oneDNN fuses it, for calls whose weights are constants.

TensorFlow's graph optimizer (grappler) rewrites a 2-D `MatMul` followed by `BiasAdd` (and a
GELU, ReLU or tanh) into one oneDNN `_FusedMatMul`. When its weights are graph constants, oneDNN
reorders them once into its fastest layout (AMX tiles where the CPU has them) and keeps them;
with variables it reorders them on every call, and the fused op is then slower than the plain
matmul + fused XLA kernels of `fused_kernels.py`. So this form is used only inside
`constant_weights_form()`, around a call whose weights are constants: the serving functions of
`albert_tf.export.frozen_weights`, where it makes a served ALBERT-base 1.5x (batch 1) to 1.6x
(batch 32) faster.

What changes against the training form is where values are rounded to the compute dtype: the
bias, the activation and the residual are applied to oneDNN's float32 accumulator, and the sum
is rounded once before oneDNN's LayerNorm (float32 statistics inside); training rounds the
matmul's output, then adds bias and residual and normalizes in one float32 XLA kernel. The
attention softmax is oneDNN's (float32 inside); its inputs, `scores / sqrt(head_size) + mask`,
are exact in bfloat16 for power-of-two head sizes. Served and trained outputs agree to bfloat16
rounding (`tests/export/test_frozen_weights.py`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

import keras
import tensorflow as tf

from albert_tf.models.activations import activation_math

_STATE = threading.local()

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


@contextlib.contextmanager
def constant_weights_form() -> Iterator[None]:
    """Within this block (on this thread), inference calls of the blocks take the fused form."""
    previous = getattr(_STATE, "active", False)
    _STATE.active = True
    try:
        yield
    finally:
        _STATE.active = previous


def use_constant_weights_form(training: bool | None) -> bool:
    """Whether a sub-layer called with `training` should take this form now."""
    return not training and getattr(_STATE, "active", False)


def fused_dense(
    x: tf.Tensor,
    layer: keras.layers.Dense,
    activation: str = "linear",
    residual: tf.Tensor | None = None,
) -> tf.Tensor:
    """`activation(layer(x)) (+ residual)` for `x` [..., in] as 2-D MatMul + BiasAdd (+ ...).

    The residual is added in 2-D too, so that oneDNN adds it inside the matmul.

    Example:
    >>> layer = keras.layers.Dense(2, bias_initializer="ones")
    >>> x = tf.ones([1, 3, 4])
    >>> bool(tf.reduce_all(tf.abs(fused_dense(x, layer) - layer(x)) < 1e-6))
    True
    """
    if not layer.built:
        layer.build(x.shape)
    rows = tf.reshape(x, [-1, x.shape[-1]])
    y = tf.nn.bias_add(tf.matmul(rows, tf.convert_to_tensor(layer.kernel)), layer.bias)
    y = _FUSABLE.get(activation, activation_math(activation))(y)
    if residual is not None:
        y += tf.reshape(residual, tf.shape(y))
    return tf.reshape(y, tf.concat([tf.shape(x)[:-1], [layer.units]], axis=0))


def fused_layer_norm(x: tf.Tensor, layer: keras.layers.LayerNormalization) -> tf.Tensor:
    """`layer(x)` over the last axis, written as the graph grappler turns into `_MklLayerNorm`.

    That rewrite matches only Keras 2's LayerNormalization graph: a per-row `FusedBatchNormV3`
    with unit scale and zero offset (the rows as NCHW channels), then `* gamma + beta`; and
    only with a dynamic number of rows (static ones fold the `Fill`s into constants).

    Example:
    >>> layer = keras.layers.LayerNormalization(epsilon=1e-12)
    >>> x = tf.constant([[[1.0, 2.0, 3.0]]])
    >>> bool(tf.reduce_all(tf.abs(fused_layer_norm(x, layer) - layer(x)) < 1e-5))
    True
    """
    if not layer.built:
        layer.build(x.shape)
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
    return normalized * tf.cast(layer.gamma, x.dtype) + tf.cast(layer.beta, x.dtype)


# Float dtype -> the integer dtype of the same width.
_SAME_WIDTH_INTEGER = {tf.bfloat16: tf.int16, tf.float16: tf.int16, tf.float32: tf.int32}


def transpose_bits(x: tf.Tensor, perm: list[int]) -> tf.Tensor:
    """`tf.transpose(x, perm)`, moving `x`'s bits as integers of the same width.

    TensorFlow runs float transposes as oneDNN reorders, whose set-up costs ~70 us a call: five
    times the copy itself for one sequence's attention heads (bf16 [1, 128, 12, 64] on a 2-core
    Xeon: 0.08 vs 0.016 ms). The integer transpose is Eigen's plain copy.

    Example:
    >>> x = tf.reshape(tf.range(6, dtype=tf.float32), [1, 2, 3])
    >>> transpose_bits(x, [0, 2, 1]).numpy().tolist()
    [[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]]
    """
    integer = _SAME_WIDTH_INTEGER.get(x.dtype)
    if integer is None:
        return tf.transpose(x, perm)
    return tf.bitcast(tf.transpose(tf.bitcast(x, integer), perm), x.dtype)
