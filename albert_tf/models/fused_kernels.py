"""The Transformer's non-matmul chains (bias + GELU, bias + residual + LayerNorm, masked softmax)
as XLA kernels between oneDNN matmuls.

Without XLA, TensorFlow runs each elementwise op as its own pass over memory, and on CPUs its
bfloat16 kernels convert element by element: in an ALBERT-base mixed_bfloat16 training step
the GELU's forward and backward alone (a dozen `Mul`/`Tanh`/`TanhGrad` passes over
[tokens, 3072]) took longer than the FFN's AMX matmuls. XLA fuses such a chain into one loop
computed in float32, but XLA's CPU matmuls use neither AMX nor oneDNN (bf16 GEMM 266 vs
oneDNN's 1521 GFLOP/s on an AMX Xeon). So the model keeps its matmuls in TensorFlow (oneDNN)
and runs each chain here as a small compiled function with a compiled backward, which
recomputes the cheap forward instead of keeping its intermediates. The Dense layers' biases are
folded into these kernels (one pass fewer each way). Measured on a 2-core AMX Xeon: GELU
forward + backward over [2048, 3072] bf16 56.6 -> 8.6 ms; `fit` of ALBERT-base, batch 32,
length 128, mixed_bfloat16 8.2 -> 11.3 sequences/s (`benchmarks/bench_finetune.py`). Under a
model-wide `jit_compile=True` (TPUs, GPUs) these functions are inlined into the one XLA program.

They are for CPUs: where TensorFlow sees a GPU or TPU they are off, and XLA fuses the plain
ops itself (on an H100 the fine-tuning step ran 2-7% faster with plain ops than with these
kernels' float32 chains and recomputing backward; docs/gpu.md). The plain ops reduce with
reductions, and keep a bfloat16 softmax in bfloat16 (`scaled_masked_softmax`).
`ALBERT_TF_FUSED_KERNELS=0` switches the kernels off anywhere (plain TensorFlow ops, the same
math), for converters or runtimes without XLA; `=1` switches them on anywhere.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence

import keras
import tensorflow as tf

from albert_tf.models.activations import activation_math


def fused_enabled() -> bool:
    """Whether the chains run as XLA kernels: `ALBERT_TF_FUSED_KERNELS` (`1`/`0`) if set, else
    only where TensorFlow sees no GPU or TPU."""
    setting = os.environ.get("ALBERT_TF_FUSED_KERNELS")
    if setting is not None:
        return setting != "0"
    return not has_accelerator()


@functools.cache
def has_accelerator() -> bool:
    """Whether TensorFlow sees a GPU or TPU (asked once: it fixes the runtime's devices)."""
    return bool(tf.config.list_logical_devices("GPU") or tf.config.list_logical_devices("TPU"))


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
    automatic differentiation (also compiled). With fusion switched off this is `function`,
    unchanged.
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
        if not fused_enabled():
            return function(*args)
        return fused(*(tf.convert_to_tensor(arg) for arg in args))

    return call


def _plain_bfloat16(x: tf.Tensor) -> bool:
    """Whether `x` is computed in bfloat16: plain ops (GPUs, TPUs) keep bfloat16 chains in
    bfloat16 (float32's exponent range; sums still accumulate in float32), where the CPU
    kernels compute them in float32."""
    return not fused_enabled() and x.dtype == tf.bfloat16


def bias_activation(x: tf.Tensor, bias: tf.Tensor | None, activation: str) -> tf.Tensor:
    """`activation(x + bias)` in float32 as one kernel, in `x`'s dtype (`bias` may be None).

    `activation` is an `AlbertConfig.hidden_act` name. Folding the Dense layer's bias in saves
    a pass over the [tokens, intermediate] activations forward and one backward. With plain
    ops (`fused_enabled()` false: GPUs, TPUs) bfloat16 inputs are computed in bfloat16, as
    Keras computes a mixed-precision Dense layer's activation: the float32 form left XLA a
    float32 copy of the [tokens, intermediate] pre-activations to keep for the backward. On an
    H200 that made the fine-tuning step of ALBERT-base and -large at length 512 3-4% faster
    (docs/gpu.md).

    Example:
    >>> out = bias_activation(tf.constant([[0.0, 1.0]]), tf.constant([1.0, -1.0]), "gelu")
    >>> [round(v, 4) for v in out.numpy()[0].tolist()]
    [0.8412, 0.0]
    """
    if _plain_bfloat16(x):
        return activation_math(activation)(x if bias is None else x + tf.cast(bias, x.dtype))
    if bias is None:
        return _activation_kernel(activation)(x)
    return _bias_activation_kernel(activation)(x, bias)


def get_activation(name: str) -> Callable[[tf.Tensor], tf.Tensor]:
    """The activation for an `AlbertConfig.hidden_act` name, in float32 as one fused kernel.

    Example:
    >>> float(get_activation("relu")(tf.constant(-1.0)))
    0.0
    """
    activation_math(name)  # Fails early on an unknown name.
    return lambda x: bias_activation(x, None, name)


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


def layer_norm_of_sum(
    layer_norm: keras.layers.LayerNormalization,
    x: tf.Tensor,
    residual: tf.Tensor,
    bias: tf.Tensor | None = None,
) -> tf.Tensor:
    """`layer_norm(x + bias + residual)` with `layer_norm`'s weights, as one fused kernel."""
    return residual_layer_norm(
        x, residual, layer_norm.gamma, layer_norm.beta, layer_norm.epsilon, bias=bias
    )


def residual_layer_norm(
    x: tf.Tensor,
    residual: tf.Tensor,
    gamma: tf.Tensor,
    beta: tf.Tensor,
    epsilon: float,
    bias: tf.Tensor | None = None,
) -> tf.Tensor:
    """`LayerNorm(x + bias + residual)` over the last axis in float32, in `x`'s dtype.

    `bias` (optional) is a Dense layer's bias, folded in here instead of its own pass.

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
    # XLA reductions that took longer than the rest (17.9 vs 10.7 ms over [4096, 768] bf16);
    # here they are products with a row of ones.
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
    """[..., H] -> [..., 1] means over the last axis; in the fused kernels a matmul with ones.

    XLA's CPU row reductions ran at well under the memory bandwidth: the residual LayerNorm
    kernel over [4096, 768] float32 took 5.4 ms forward and 13.8 ms forward + backward with
    `tf.nn.moments` and `reduce_mean`, 2.6 and 9.3 ms this way (2-core Xeon without AMX).
    Plain ops (GPUs, TPUs, converters) keep the reduction, the op every backend expects.
    """
    if not fused_enabled():
        return tf.reduce_mean(x, axis=-1, keepdims=True)
    size = x.shape[-1]
    rows = tf.reshape(x, [-1, size])
    sums = tf.matmul(rows, tf.ones([size, 1], x.dtype))
    return tf.reshape(sums, tf.concat([tf.shape(x)[:-1], [1]], 0)) / size


def _column_sums(x: tf.Tensor) -> tf.Tensor:
    """[..., H] -> [H] sums over every leading axis; in the fused kernels a matmul with ones."""
    rows = tf.reshape(x, [-1, x.shape[-1]])
    if not fused_enabled():
        return tf.reduce_sum(rows, axis=0)
    return tf.matmul(tf.ones([1, tf.shape(rows)[0]], x.dtype), rows)[0]


def scaled_masked_softmax(
    scores: tf.Tensor, scale: float, adder: tf.Tensor | None = None
) -> tf.Tensor:
    """`softmax(scores * scale + adder)` over the last axis in float32, in `scores`' dtype.

    `adder` (no gradient) broadcasts against `scores`: 0 for keys to attend to, a large
    negative number for padding. With plain ops (`fused_enabled()` false: GPUs, TPUs)
    bfloat16 scores get a bfloat16 softmax (its sums still accumulate in float32): bfloat16
    has float32's exponent range, so the adder and `exp` are safe (float16 keeps float32), and
    the probabilities kept for the backward are half the bytes. On an H100 that made the
    fine-tuning step of ALBERT-base and -large at length 512 3.2-3.7% faster (docs/gpu.md).

    Example:
    >>> probs = scaled_masked_softmax(tf.zeros((1, 3)), 1.0, tf.constant([0.0, 0, -1e4]))
    >>> [round(v, 3) for v in probs.numpy()[0].tolist()]
    [0.5, 0.5, 0.0]
    """
    if _plain_bfloat16(scores):
        logits = scores * tf.cast(scale, scores.dtype)
        if adder is not None:
            logits += tf.cast(tf.stop_gradient(adder), scores.dtype)
        return tf.nn.softmax(logits, axis=-1)
    if adder is None:
        return _softmax_kernel(float(scale))(scores)
    return _masked_softmax_kernel(float(scale))(scores, adder)


@functools.cache
def _softmax_kernel(scale: float) -> Callable[..., tf.Tensor]:
    @xla_fused
    def kernel(scores):
        return tf.cast(tf.nn.softmax(tf.cast(scores, tf.float32) * scale, axis=-1), scores.dtype)

    return kernel


@functools.cache
def _masked_softmax_kernel(scale: float) -> Callable[..., tf.Tensor]:
    @xla_fused(differentiable=1)
    def kernel(scores, adder):
        logits = tf.cast(scores, tf.float32) * scale + tf.cast(adder, tf.float32)
        return tf.cast(tf.nn.softmax(logits, axis=-1), scores.dtype)

    return kernel
