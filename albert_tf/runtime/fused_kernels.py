"""The Transformer's elementwise chains as XLA kernels between TensorFlow's matmuls.

Without XLA, TensorFlow runs each elementwise op as its own pass over memory, and on CPUs its
bfloat16 kernels convert element by element: the GELU's forward and backward alone (a dozen
`Mul`/`Tanh`/`TanhGrad` passes over [tokens, intermediate]) can cost more than the FFN's
matmuls. XLA fuses such a chain into one loop computed in float32, but XLA's own CPU matmuls
use neither AMX nor oneDNN. So the model keeps its matmuls in TensorFlow and the runtime swaps
a chain of `albert_tf.models.chains` for a small compiled function with a compiled backward,
which recomputes the cheap forward instead of keeping its intermediates; the Dense layers'
biases are folded in (one pass fewer each way). Under a model-wide `jit_compile=True` these
functions are inlined into the one XLA program.

These forms compute every dtype in float32 (bfloat16 in, bfloat16 out) and reduce rows with
matmuls; the plain forms they replace are the reference (`tests/runtime/test_fused_kernels.py`
holds them to it). A `Runtime` with `fused_kernels` hands `FUSED_CHAINS` to the models it
trains (`albert_tf.runtime.runtime` says where that is the default).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import tensorflow as tf

from albert_tf.models.activations import activation_math
from albert_tf.models.chains import Chains


def xla_fused(
    function: Callable[..., tf.Tensor] | None = None,
    *,
    differentiable: int | None = None,
    gradients: Callable[..., Sequence[tf.Tensor]] | None = None,
) -> Callable[..., tf.Tensor]:
    """`function` (tensors in, one tensor out) compiled by XLA, forward and backward.

    The backward recomputes `function` inside its own compiled kernel and differentiates it
    there: TensorFlow does not compile the gradient of a `jit_compile` function by itself.
    Only the first `differentiable` arguments (default: all) get gradients; the rest are
    treated as constants. `gradients(upstream, *args)`, when given, is used instead of
    automatic differentiation (also compiled).
    """
    if function is None:
        return functools.partial(xla_fused, differentiable=differentiable, gradients=gradients)
    forward = tf.function(function, jit_compile=True, autograph=False)

    @tf.function(jit_compile=True, autograph=False)
    def backward(upstream, *args):
        if gradients is not None:
            return gradients(upstream, *args)
        wrt = args[:differentiable]
        with tf.GradientTape() as tape:
            tape.watch(wrt)
            outputs = function(*args)
        return tape.gradient(outputs, wrt, output_gradients=upstream)

    @tf.custom_gradient
    def fused(*args):
        def gradient(upstream):
            grads = list(backward(upstream, *args))
            return grads + [None] * (len(args) - len(grads))

        return forward(*args), gradient

    @functools.wraps(function)
    def call(*args):
        return fused(*(tf.convert_to_tensor(arg) for arg in args))

    return call


def bias_activation(x: tf.Tensor, bias: tf.Tensor | None, activation: str) -> tf.Tensor:
    """`activation(x + bias)` in float32 as one kernel, in `x`'s dtype (`bias` may be None).

    Example:
    >>> out = bias_activation(tf.constant([[0.0, 1.0]]), tf.constant([1.0, -1.0]), "gelu")
    >>> [round(v, 4) for v in out.numpy()[0].tolist()]
    [0.8412, 0.0]
    """
    if bias is None:
        return _activation_kernel(activation)(x)
    return _bias_activation_kernel(activation)(x, bias)


@functools.cache
def _activation_kernel(name: str) -> Callable[..., tf.Tensor]:
    math_fn = activation_math(name)

    @xla_fused
    def kernel(x):
        return tf.cast(math_fn(tf.cast(x, tf.float32)), x.dtype)

    return kernel


@functools.cache
def _bias_activation_kernel(name: str) -> Callable[..., tf.Tensor]:
    math_fn = activation_math(name)

    @xla_fused
    def kernel(x, bias):
        return tf.cast(math_fn(tf.cast(x, tf.float32) + tf.cast(bias, tf.float32)), x.dtype)

    return kernel


def residual_layer_norm(
    x: tf.Tensor,
    residual: tf.Tensor,
    gamma: tf.Tensor,
    beta: tf.Tensor,
    epsilon: float,
    bias: tf.Tensor | None = None,
) -> tf.Tensor:
    """`LayerNorm(x + bias + residual)` over the last axis in float32 as one kernel.

    Example:
    >>> x = tf.constant([[1.0, 2.0, 3.0]])
    >>> out = residual_layer_norm(x, tf.zeros_like(x), tf.ones(3), tf.zeros(3), 1e-12)
    >>> [round(v, 4) for v in out.numpy()[0].tolist()]
    [-1.2247, 0.0, 1.2247]
    """
    kernel = _residual_layer_norm_kernel(float(epsilon), bias is not None)
    extra = () if bias is None else (bias,)
    return kernel(x, residual, gamma, beta, *extra)


@functools.cache
def _residual_layer_norm_kernel(epsilon: float, with_bias: bool) -> Callable[..., tf.Tensor]:
    def normalized(x, residual, bias):
        y = tf.cast(x, tf.float32) + tf.cast(residual, tf.float32)
        if with_bias:
            y += tf.cast(bias[0], tf.float32)
        centered = y - _row_means(y)
        inverse_std = tf.math.rsqrt(_row_means(centered * centered) + epsilon)
        return centered * inverse_std, inverse_std

    # Written out: automatic differentiation made the three column sums (gamma, beta, bias)
    # XLA reductions slower than the rest of the kernel; here they are products with ones.
    def gradients(upstream, x, residual, gamma, beta, *bias):
        x_hat, inverse_std = normalized(x, residual, bias)
        d_out = tf.cast(upstream, tf.float32)
        d_hat = d_out * tf.cast(gamma, tf.float32)
        d_y = inverse_std * (d_hat - _row_means(d_hat) - x_hat * _row_means(d_hat * x_hat))
        grads = [
            tf.cast(d_y, x.dtype),
            tf.cast(d_y, residual.dtype),
            tf.cast(_column_sums(d_out * x_hat), gamma.dtype),
            tf.cast(_column_sums(d_out), beta.dtype),
        ]
        if with_bias:
            grads.append(tf.cast(_column_sums(d_y), bias[0].dtype))
        return grads

    @xla_fused(gradients=gradients)
    def kernel(x, residual, gamma, beta, *bias):
        x_hat, _ = normalized(x, residual, bias)
        scaled = x_hat * tf.cast(gamma, tf.float32) + tf.cast(beta, tf.float32)
        return tf.cast(scaled, x.dtype)

    return kernel


def _row_means(x: tf.Tensor) -> tf.Tensor:
    """[..., H] -> [..., 1] means over the last axis, as a matmul with a column of ones.

    XLA's CPU row reductions run well under the memory bandwidth; its matmul does not.
    """
    size = x.shape[-1]
    rows = tf.reshape(x, [-1, size])
    sums = tf.matmul(rows, tf.ones([size, 1], x.dtype))
    return tf.reshape(sums, tf.concat([tf.shape(x)[:-1], [1]], 0)) / size


def _column_sums(x: tf.Tensor) -> tf.Tensor:
    """[..., H] -> [H] sums over every leading axis, as a matmul with a row of ones."""
    rows = tf.reshape(x, [-1, x.shape[-1]])
    return tf.matmul(tf.ones([1, tf.shape(rows)[0]], x.dtype), rows)[0]


# The chains a model trains with where the runtime runs the fused kernels; the softmax stays
# plain (it measured no faster fused on any CPU kind at hand).
FUSED_CHAINS = Chains(bias_activation=bias_activation, residual_layer_norm=residual_layer_norm)
