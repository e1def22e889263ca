"""The chains' plain reference and the slots a runtime fills (`albert_tf.models.forms`)."""

from __future__ import annotations

import threading

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.models import AlbertEncoder, forms
from albert_tf.models.activations import ACTIVATIONS
from tests.chain_inputs import ADDER, BETA, BIAS, GAMMA, RESIDUAL, SCORES, X


def _op_input_dtypes(function, args, op_type: str) -> list[tf.DType]:
    graph = tf.function(function).get_concrete_function(*args).graph
    return [op.inputs[0].dtype for op in graph.get_operations() if op.type == op_type]


def test_layer_norm_matches_keras_and_bias_is_added_before_it():
    layer = keras.layers.LayerNormalization(epsilon=1e-12)
    layer.build(X.shape)
    layer.set_weights([GAMMA.numpy(), BETA.numpy()])
    expected = layer(X + BIAS + RESIDUAL)
    np.testing.assert_allclose(
        forms.layer_norm_of_sum(layer, X, RESIDUAL, bias=BIAS), expected, atol=1e-5
    )


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_bias_activation_is_the_activation_of_the_sum(name):
    expected = ACTIVATIONS[name](X + BIAS)
    np.testing.assert_allclose(forms.bias_activation(X, BIAS, name), expected, atol=1e-6)


def test_bfloat16_softmax_and_activation_stay_in_bfloat16_float16_in_float32():
    """Plain ops keep bf16 probabilities and activations for the backward, not float32 ones."""
    scores = tf.cast(SCORES, tf.bfloat16)
    softmax = lambda s: forms.scaled_masked_softmax(s, 0.125, ADDER)  # noqa: E731
    assert _op_input_dtypes(softmax, (scores,), "Softmax") == [tf.bfloat16]
    assert _op_input_dtypes(softmax, (tf.cast(scores, tf.float16),), "Softmax") == [tf.float32]
    x, bias = tf.cast(X, tf.bfloat16), tf.cast(BIAS, tf.bfloat16)
    gelu = lambda x, b: forms.bias_activation(x, b, "gelu")  # noqa: E731
    assert _op_input_dtypes(gelu, (x, bias), "Tanh") == [tf.bfloat16]
    half = (tf.cast(x, tf.float16), tf.cast(bias, tf.float16))
    assert _op_input_dtypes(gelu, half, "Tanh") == [tf.float32]
    assert forms.bias_activation(x, bias, "gelu").dtype == tf.bfloat16


def test_layer_norm_reduces_rows_with_reductions_in_float32():
    """The reference keeps the reduction every backend fuses; bf16 in, float32 statistics."""

    def function(x, r, g, b, c):
        return forms.residual_layer_norm(x, r, g, b, 1e-12, bias=c)

    args = (X, RESIDUAL, GAMMA, BETA, BIAS)
    assert _op_input_dtypes(function, args, "MatMul") == []
    assert _op_input_dtypes(function, args, "Mean")
    bf16 = (tf.cast(X, tf.bfloat16), tf.cast(RESIDUAL, tf.bfloat16), GAMMA, BETA, BIAS)
    assert set(_op_input_dtypes(function, bf16, "Mean")) == {tf.float32}


def test_an_installed_form_fills_its_slot_and_is_restored():
    calls = []

    def fake(scores, scale, adder=None):
        calls.append(scale)
        return scores

    previous = forms.install({"scaled_masked_softmax": fake})
    try:
        out = forms.scaled_masked_softmax(SCORES, 0.5)
        assert calls == [0.5] and out is SCORES
    finally:
        forms.install(previous)
    assert forms.installed("scaled_masked_softmax") is None
    probs = forms.scaled_masked_softmax(SCORES, 0.5)
    np.testing.assert_allclose(tf.reduce_sum(probs, -1), 1.0, atol=1e-6)


def test_using_is_per_thread_and_none_means_the_reference():
    seen = {}

    def other_thread():
        seen["other"] = forms.installed("bias_activation")

    fake = lambda x, bias, activation: x  # noqa: E731
    previous = forms.install({"bias_activation": fake})
    try:
        with forms.using(bias_activation=None):
            assert forms.installed("bias_activation") is None
            thread = threading.Thread(target=other_thread)
            thread.start()
            thread.join()
        assert forms.installed("bias_activation") is fake
    finally:
        forms.install(previous)
    assert seen["other"] is fake  # The block applied to its own thread only.


def test_unknown_slots_are_refused():
    with pytest.raises(ValueError, match="No slot"):
        forms.install({"attention": lambda: None})
    with pytest.raises(ValueError, match="No slot"):
        with forms.using(attention=None):
            pass


def test_the_encoder_hook_serves_inference_only(tiny_config, encoder_inputs):
    encoder = AlbertEncoder(tiny_config(num_hidden_layers=2))
    inputs = encoder_inputs()
    expected = encoder(inputs)
    seen = []

    def inference(model, model_inputs):
        seen.append(model)
        return {"sequence_output": tf.zeros([2, 12, 32]), "pooled_output": tf.fill([2, 32], 7.0)}

    with forms.using(encoder_inference=inference):
        assert float(tf.reduce_max(encoder(inputs, training=False)["sequence_output"])) == 0.0
        assert float(tf.reduce_min(encoder.pooled_output(inputs))) == 7.0
        trained = encoder(inputs, training=True)  # Training never takes the hook.
    assert seen == [encoder, encoder]
    np.testing.assert_allclose(trained["sequence_output"], expected["sequence_output"], atol=1e-6)
