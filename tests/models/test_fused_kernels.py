"""The fused XLA kernels compute what the plain TensorFlow ops compute, forward and backward."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.models import fused_kernels
from albert_tf.models.activations import ACTIVATIONS

RNG = np.random.default_rng(0)
X = tf.constant(RNG.normal(size=(2, 5, 8)), tf.float32)
RESIDUAL = tf.constant(RNG.normal(size=(2, 5, 8)), tf.float32)
GAMMA = tf.constant(RNG.normal(size=(8,)), tf.float32)
BETA = tf.constant(RNG.normal(size=(8,)), tf.float32)
BIAS = tf.constant(RNG.normal(size=(8,)), tf.float32)
SCORES = tf.constant(RNG.normal(size=(2, 3, 5, 5)), tf.float32)
ADDER = tf.constant([[[[0.0, 0, 0, -1e4, -1e4]]], [[[0.0, 0, 0, 0, -1e4]]]])

CASES = {
    **{
        f"bias_{name}": (lambda x, b, n=name: fused_kernels.bias_activation(x, b, n), (X, BIAS))
        for name in ACTIVATIONS
    },
    "gelu_no_bias": (lambda x: fused_kernels.bias_activation(x, None, "gelu"), (X,)),
    "layer_norm": (
        lambda x, r, g, b: fused_kernels.residual_layer_norm(x, r, g, b, 1e-12),
        (X, RESIDUAL, GAMMA, BETA),
    ),
    "layer_norm_bias": (
        lambda x, r, g, b, c: fused_kernels.residual_layer_norm(x, r, g, b, 1e-12, bias=c),
        (X, RESIDUAL, GAMMA, BETA, BIAS),
    ),
    "softmax": (lambda s: fused_kernels.scaled_masked_softmax(s, 0.125), (SCORES,)),
    "masked_softmax": (lambda s: fused_kernels.scaled_masked_softmax(s, 0.125, ADDER), (SCORES,)),
}


def _value_and_grads(function, args):
    weights = tf.constant(np.random.default_rng(1).normal(size=function(*args).shape), tf.float32)

    @tf.function
    def run(*args):
        with tf.GradientTape() as tape:
            tape.watch(args)
            output = function(*args)
            loss = tf.reduce_sum(tf.cast(output, tf.float32) * weights)
        return output, tape.gradient(loss, args)

    return run(*args)


def _graph_has_xla_function(function, args) -> bool:
    graph = tf.function(function).get_concrete_function(*args).graph.as_graph_def()
    functions = graph.library.function
    return any(f.attr["_XlaMustCompile"].b for f in functions)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fused_matches_plain_ops(name, monkeypatch):
    function, args = CASES[name]
    fused_output, fused_grads = _value_and_grads(function, args)
    assert _graph_has_xla_function(function, args)
    monkeypatch.setenv("ALBERT_TF_FUSED_KERNELS", "0")
    assert not _graph_has_xla_function(function, args)
    plain_output, plain_grads = _value_and_grads(function, args)
    np.testing.assert_allclose(fused_output, plain_output, rtol=1e-5, atol=1e-5)
    for fused, plain in zip(fused_grads, plain_grads, strict=True):
        np.testing.assert_allclose(fused, plain, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("setting", "accelerator", "fused"),
    [(None, False, True), (None, True, False), ("1", True, True), ("0", False, False)],
)
def test_kernels_are_for_cpus_unless_the_variable_says(setting, accelerator, fused, monkeypatch):
    if setting is None:
        monkeypatch.delenv("ALBERT_TF_FUSED_KERNELS", raising=False)
    else:
        monkeypatch.setenv("ALBERT_TF_FUSED_KERNELS", setting)
    monkeypatch.setattr(fused_kernels, "has_accelerator", lambda: accelerator)
    function, args = CASES["layer_norm"]
    assert fused_kernels.fused_enabled() is fused
    assert _graph_has_xla_function(function, args) is fused


def test_layer_norm_matches_keras_and_bias_is_added_before_it():
    layer = tf.keras.layers.LayerNormalization(epsilon=1e-12)
    layer.build(X.shape)
    layer.set_weights([GAMMA.numpy(), BETA.numpy()])
    expected = layer(X + BIAS + RESIDUAL)
    fused = fused_kernels.layer_norm_of_sum(layer, X, RESIDUAL, bias=BIAS)
    np.testing.assert_allclose(fused, expected, atol=1e-5)


def test_bfloat16_in_bfloat16_out_computed_in_float32():
    x = tf.cast(X * 3.0, tf.bfloat16)
    out = fused_kernels.bias_activation(x, tf.cast(BIAS, tf.bfloat16), "gelu")
    assert out.dtype == tf.bfloat16
    reference = ACTIVATIONS["gelu"](
        tf.cast(x, tf.float32) + tf.cast(tf.cast(BIAS, tf.bfloat16), tf.float32)
    )
    np.testing.assert_allclose(tf.cast(out, tf.float32), reference, rtol=1e-2, atol=1e-2)
    probs = fused_kernels.scaled_masked_softmax(tf.cast(SCORES, tf.bfloat16), 0.125, ADDER)
    assert probs.dtype == tf.bfloat16
    np.testing.assert_allclose(tf.reduce_sum(tf.cast(probs, tf.float32), -1), 1.0, atol=1e-2)


def test_mask_adder_gets_no_gradient_and_masks():
    scores = SCORES
    with tf.GradientTape() as tape:
        tape.watch(ADDER)
        probs = fused_kernels.scaled_masked_softmax(scores, 0.125, ADDER)
    assert tape.gradient(probs, ADDER) is None
    np.testing.assert_allclose(probs.numpy()[0, :, :, 3:], 0.0, atol=1e-6)


def test_inside_a_jit_compiled_function():
    function, args = CASES["layer_norm_bias"]
    compiled = tf.function(function, jit_compile=True)
    np.testing.assert_allclose(compiled(*args), function(*args), atol=1e-6)


def _op_input_dtypes(function, args, op_type: str) -> list[tf.DType]:
    graph = tf.function(function).get_concrete_function(*args).graph
    return [op.inputs[0].dtype for op in graph.get_operations() if op.type == op_type]


def test_plain_ops_keep_a_bfloat16_softmax_in_bfloat16(monkeypatch):
    """Plain ops (GPUs, TPUs) keep bf16 probabilities for the backward, not float32 ones; the
    values and gradients stay within bf16 rounding of the float32 kernel's."""
    scores = tf.cast(SCORES * 4.0, tf.bfloat16)
    function = CASES["masked_softmax"][0]
    fused_output, (fused_grad,) = _value_and_grads(function, (scores,))
    monkeypatch.setenv("ALBERT_TF_FUSED_KERNELS", "0")
    assert _op_input_dtypes(function, (scores,), "Softmax") == [tf.bfloat16]
    assert _op_input_dtypes(function, (tf.cast(scores, tf.float16),), "Softmax") == [tf.float32]
    plain_output, (plain_grad,) = _value_and_grads(function, (scores,))
    assert plain_output.dtype == tf.bfloat16
    np.testing.assert_allclose(tf.cast(plain_output, tf.float32), fused_output, atol=1e-2)
    np.testing.assert_allclose(tf.cast(plain_grad, tf.float32), fused_grad, atol=2e-2, rtol=5e-2)


def test_plain_ops_keep_a_bfloat16_activation_in_bfloat16(monkeypatch):
    """Plain ops compute a bf16 bias + GELU in bf16 (no float32 copy of the [tokens,
    intermediate] activations for XLA to keep), float16 in float32; the values and gradients
    stay within bf16 rounding of the float32 kernel's."""
    x, bias = tf.cast(X * 3.0, tf.bfloat16), tf.cast(BIAS, tf.bfloat16)
    function = CASES["bias_gelu"][0]
    fused_output, fused_grads = _value_and_grads(function, (x, bias))
    monkeypatch.setenv("ALBERT_TF_FUSED_KERNELS", "0")
    assert _op_input_dtypes(function, (x, bias), "Tanh") == [tf.bfloat16]
    half = (tf.cast(x, tf.float16), tf.cast(bias, tf.float16))
    assert _op_input_dtypes(function, half, "Tanh") == [tf.float32]
    plain_output, plain_grads = _value_and_grads(function, (x, bias))
    assert plain_output.dtype == tf.bfloat16
    np.testing.assert_allclose(tf.cast(plain_output, tf.float32), fused_output, atol=5e-2)
    for plain, fused in zip(plain_grads, fused_grads, strict=True):
        np.testing.assert_allclose(
            tf.cast(plain, tf.float32), tf.cast(fused, tf.float32), atol=0.1, rtol=5e-2
        )


def test_plain_ops_reduce_rows_with_reductions(monkeypatch):
    """The matmul-with-ones reductions are for XLA's CPU backend; plain ops keep the reduction
    that every backend fuses."""
    function, args = CASES["layer_norm_bias"]
    monkeypatch.setenv("ALBERT_TF_FUSED_KERNELS", "0")
    assert _op_input_dtypes(function, args, "MatMul") == []
    assert _op_input_dtypes(function, args, "Mean")
