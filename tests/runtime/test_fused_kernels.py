"""The fused XLA kernels compute what the plain reference computes, forward and backward."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.models import AlbertClassifier, AlbertEncoder, chains, use_chains
from albert_tf.models.activations import ACTIVATIONS
from albert_tf.runtime import fused_kernels
from tests.chain_inputs import ADDER, BETA, BIAS, GAMMA, RESIDUAL, SCORES, X


def _cases(module):
    """name -> (function of tensors, arguments), with `module`'s chains (fused or plain)."""
    return {
        **{
            f"bias_{name}": (lambda x, b, n=name: module.bias_activation(x, b, n), (X, BIAS))
            for name in ACTIVATIONS
        },
        "gelu_no_bias": (lambda x: module.bias_activation(x, None, "gelu"), (X,)),
        "layer_norm": (
            lambda x, r, g, b: module.residual_layer_norm(x, r, g, b, 1e-12),
            (X, RESIDUAL, GAMMA, BETA),
        ),
        "layer_norm_bias": (
            lambda x, r, g, b, c: module.residual_layer_norm(x, r, g, b, 1e-12, bias=c),
            (X, RESIDUAL, GAMMA, BETA, BIAS),
        ),
    }


FUSED, PLAIN = _cases(fused_kernels), _cases(chains)


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


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_matches_plain_ops(name):
    function, args = FUSED[name]
    fused_output, fused_grads = _value_and_grads(function, args)
    assert _graph_has_xla_function(function, args)
    plain, _ = PLAIN[name]
    assert not _graph_has_xla_function(plain, args)
    plain_output, plain_grads = _value_and_grads(plain, args)
    np.testing.assert_allclose(fused_output, plain_output, rtol=1e-5, atol=1e-5)
    for fused, plain in zip(fused_grads, plain_grads, strict=True):
        np.testing.assert_allclose(fused, plain, rtol=1e-4, atol=1e-5)


def test_bfloat16_in_bfloat16_out_computed_in_float32():
    x = tf.cast(X * 3.0, tf.bfloat16)
    out = fused_kernels.bias_activation(x, tf.cast(BIAS, tf.bfloat16), "gelu")
    assert out.dtype == tf.bfloat16
    reference = ACTIVATIONS["gelu"](
        tf.cast(x, tf.float32) + tf.cast(tf.cast(BIAS, tf.bfloat16), tf.float32)
    )
    np.testing.assert_allclose(tf.cast(out, tf.float32), reference, rtol=1e-2, atol=1e-2)


def test_the_fused_chains_keep_the_plain_softmax():
    assert fused_kernels.FUSED_CHAINS.scaled_masked_softmax is chains.scaled_masked_softmax
    with tf.GradientTape() as tape:
        tape.watch(ADDER)
        probs = fused_kernels.FUSED_CHAINS.scaled_masked_softmax(SCORES, 0.125, ADDER)
    assert tape.gradient(probs, ADDER) is None
    np.testing.assert_allclose(probs.numpy()[0, :, :, 3:], 0.0, atol=1e-6)


def test_inside_a_jit_compiled_function():
    function, args = FUSED["layer_norm_bias"]
    compiled = tf.function(function, jit_compile=True)
    np.testing.assert_allclose(compiled(*args), function(*args), atol=1e-6)


def test_bfloat16_activation_within_rounding_of_the_plain_bfloat16_one():
    x, bias = tf.cast(X * 3.0, tf.bfloat16), tf.cast(BIAS, tf.bfloat16)
    fused_output, fused_grads = _value_and_grads(FUSED["bias_gelu"][0], (x, bias))
    plain_output, plain_grads = _value_and_grads(PLAIN["bias_gelu"][0], (x, bias))
    assert plain_output.dtype == tf.bfloat16
    np.testing.assert_allclose(tf.cast(plain_output, tf.float32), fused_output, atol=5e-2)
    for plain, fused in zip(plain_grads, fused_grads, strict=True):
        np.testing.assert_allclose(
            tf.cast(plain, tf.float32), tf.cast(fused, tf.float32), atol=0.1, rtol=5e-2
        )


def _train_step(model, inputs, labels):
    with tf.GradientTape() as tape:
        logits = model(inputs, training=True)
        loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(labels, logits, True))
    return logits, tape.gradient(loss, model.trainable_variables)


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_fused_chains_train_a_classifier_like_the_reference(tiny_config):
    """Handed to the layers (`use_chains`), the kernels run inside them; logits and every
    gradient stay within float32 rounding of the plain reference's."""
    keras.utils.set_random_seed(0)
    # No dropout: both steps see the same network.
    model = AlbertClassifier(AlbertEncoder(tiny_config), num_outputs=3, dropout_rate=0.0)
    rng = np.random.default_rng(0)
    inputs = {
        "input_word_ids": tf.constant(rng.integers(5, 300, (2, 12)), tf.int32),
        "input_mask": tf.constant([[1] * 12, [1] * 7 + [0] * 5], tf.int32),
        "input_type_ids": tf.zeros([2, 12], tf.int32),
    }
    labels = tf.constant([0, 2])
    step = lambda: _train_step(model, inputs, labels)  # noqa: E731
    plain_logits, plain_grads = tf.function(step)()
    use_chains(model, fused_kernels.FUSED_CHAINS)
    traced = tf.function(step)
    graph = traced.get_concrete_function().graph.as_graph_def()
    assert any(f.attr["_XlaMustCompile"].b for f in graph.library.function)
    fused_logits, fused_grads = traced()
    np.testing.assert_allclose(fused_logits, plain_logits, atol=1e-5)
    for fused, plain in zip(fused_grads, plain_grads, strict=True):
        dense = [tf.convert_to_tensor(g) for g in (fused, plain)]  # Embeddings' are sparse.
        np.testing.assert_allclose(*dense, rtol=1e-4, atol=1e-5)
