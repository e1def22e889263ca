"""Tests for albert_tf.models.feed_forward."""

import math

import keras
import numpy as np
import pytest

from albert_tf.models.feed_forward import AlbertFeedForward


def _numpy_ffn(layer, x, activation):
    h = activation(x @ layer.intermediate.kernel.numpy() + layer.intermediate.bias.numpy())
    y = x + h @ layer.output_dense.kernel.numpy() + layer.output_dense.bias.numpy()
    y = (y - y.mean(-1, keepdims=True)) / np.sqrt(y.var(-1, keepdims=True) + 1e-12)
    return y * layer.layer_norm.gamma.numpy() + layer.layer_norm.beta.numpy()


@pytest.mark.parametrize(
    "name, activation",
    [
        ("gelu", lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))),
        ("relu", lambda x: np.maximum(x, 0)),
    ],
)
def test_matches_numpy(name, activation):
    layer = AlbertFeedForward(16, 48, hidden_act=name)
    x = np.random.default_rng(0).normal(size=(2, 3, 16)).astype("float32")
    np.testing.assert_allclose(layer(x), _numpy_ffn(layer, x, activation), atol=1e-5)
    assert tuple(layer.intermediate.kernel.shape) == (16, 48)
    assert tuple(layer.output_dense.kernel.shape) == (48, 16)


def test_config_round_trip():
    layer = AlbertFeedForward(16, 48, hidden_act="gelu_exact", hidden_dropout_prob=0.1)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert isinstance(clone, AlbertFeedForward)
    assert clone.get_config() == layer.get_config()
