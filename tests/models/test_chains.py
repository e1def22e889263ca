"""The chains' plain reference and `use_chains`, which hands other chains to one model."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.models import AlbertEncoder, AlbertPretrainer, chains, use_chains
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
        chains.PLAIN.layer_norm_of_sum(layer, X, RESIDUAL, bias=BIAS), expected, atol=1e-5
    )


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_bias_activation_is_the_activation_of_the_sum(name):
    expected = ACTIVATIONS[name](X + BIAS)
    np.testing.assert_allclose(chains.bias_activation(X, BIAS, name), expected, atol=1e-6)


def test_bfloat16_softmax_and_activation_stay_in_bfloat16_float16_in_float32():
    """Plain ops keep bf16 probabilities and activations for the backward, not float32 ones."""
    scores = tf.cast(SCORES, tf.bfloat16)
    softmax = lambda s: chains.scaled_masked_softmax(s, 0.125, ADDER)  # noqa: E731
    assert _op_input_dtypes(softmax, (scores,), "Softmax") == [tf.bfloat16]
    assert _op_input_dtypes(softmax, (tf.cast(scores, tf.float16),), "Softmax") == [tf.float32]
    x, bias = tf.cast(X, tf.bfloat16), tf.cast(BIAS, tf.bfloat16)
    gelu = lambda x, b: chains.bias_activation(x, b, "gelu")  # noqa: E731
    assert _op_input_dtypes(gelu, (x, bias), "Tanh") == [tf.bfloat16]
    half = (tf.cast(x, tf.float16), tf.cast(bias, tf.float16))
    assert _op_input_dtypes(gelu, half, "Tanh") == [tf.float32]
    assert chains.bias_activation(x, bias, "gelu").dtype == tf.bfloat16


def test_layer_norm_reduces_rows_with_reductions_in_float32():
    """The reference keeps the reduction every backend fuses; bf16 in, float32 statistics."""

    def function(x, r, g, b, c):
        return chains.residual_layer_norm(x, r, g, b, 1e-12, bias=c)

    args = (X, RESIDUAL, GAMMA, BETA, BIAS)
    assert _op_input_dtypes(function, args, "MatMul") == []
    assert _op_input_dtypes(function, args, "Mean")
    bf16 = (tf.cast(X, tf.bfloat16), tf.cast(RESIDUAL, tf.bfloat16), GAMMA, BETA, BIAS)
    assert set(_op_input_dtypes(function, bf16, "Mean")) == {tf.float32}


def _record(chain_name: str, calls: list) -> chains.Chains:
    """Plain chains whose `chain_name` records each call (then computes the plain chain)."""
    plain = getattr(chains.PLAIN, chain_name)

    def recording(*args, **kwargs):
        calls.append(chain_name)
        return plain(*args, **kwargs)

    return chains.Chains(**{chain_name: recording})


def test_use_chains_reaches_every_layer_that_computes_chains(tiny_config):
    """Every attention, FFN and masked-LM head of a pretrainer, shared blocks once each.
    (`chain_layers` walks with Keras's private `_flatten_layers`: this fails if that changes.)"""
    pretrainer = AlbertPretrainer(AlbertEncoder(tiny_config(num_hidden_layers=3)))
    layers = chains.chain_layers(pretrainer)
    kinds = sorted(type(layer).__name__ for layer in layers)
    assert kinds == ["AlbertAttention", "AlbertFeedForward", "AlbertMaskedLMHead"]
    fast = chains.Chains(bias_activation=lambda x, bias, activation: x)
    assert use_chains(pretrainer, fast) is pretrainer
    assert {layer.chains for layer in layers} == {fast}


def test_two_models_in_one_process_keep_their_own_chains(tiny_config, encoder_inputs):
    """No leakage: chains given to one model change nothing in another, nor in a model built
    after it, nor in the traces made before."""
    keras.utils.set_random_seed(3)
    first = AlbertEncoder(tiny_config(num_hidden_layers=2))
    keras.utils.set_random_seed(3)
    second = AlbertEncoder(tiny_config(num_hidden_layers=2))
    inputs = encoder_inputs()
    traced_plain = tf.function(lambda x: first(x, training=False))
    expected = traced_plain(inputs)["sequence_output"]
    calls: list[str] = []
    use_chains(first, _record("residual_layer_norm", calls))
    third = AlbertEncoder(tiny_config(num_hidden_layers=2))
    second(inputs)
    third(inputs)
    assert calls == []  # Neither the twin nor a later model computes with them.
    np.testing.assert_allclose(traced_plain(inputs)["sequence_output"], expected)
    assert calls == []  # The trace made before keeps the chains it was traced with.
    out = first(inputs, training=False)["sequence_output"]
    assert calls == ["residual_layer_norm"] * 4  # 2 layers x (attention + FFN).
    np.testing.assert_allclose(out, expected, atol=1e-6)
    np.testing.assert_allclose(second(inputs)["sequence_output"], expected, atol=1e-6)


def test_saved_and_copied_models_compute_the_plain_chains(tiny_config, tmp_path):
    encoder = use_chains(AlbertEncoder(tiny_config()), _record("bias_activation", []))
    path = str(tmp_path / "encoder.keras")
    encoder.save(path)
    loaded = keras.models.load_model(path)
    assert {layer.chains for layer in chains.chain_layers(loaded)} == {chains.PLAIN}
