"""Tests for albert_tf.models.activations."""

import math

import numpy as np
import pytest

from albert_tf.models.chains import get_activation

X = np.array([-3.0, -1.0, -0.1, 0.0, 0.5, 2.0], "float32")


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def _gelu_erf(x):
    return np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])


@pytest.mark.parametrize("name", ["gelu", "gelu_new"])
def test_gelu_is_the_tanh_approximation(name):
    np.testing.assert_allclose(get_activation(name)(X), _gelu_tanh(X), atol=1e-6)


def test_gelu_exact_is_the_erf_form_and_differs_from_tanh():
    exact = np.asarray(get_activation("gelu_exact")(X))
    np.testing.assert_allclose(exact, _gelu_erf(X), atol=1e-6)
    assert np.abs(exact - _gelu_tanh(X)).max() > 1e-5


def test_relu_tanh_linear():
    np.testing.assert_allclose(get_activation("relu")(X), np.maximum(X, 0))
    np.testing.assert_allclose(get_activation("tanh")(X), np.tanh(X), atol=1e-6)
    np.testing.assert_allclose(get_activation("linear")(X), X)


def test_unknown_activation_names_the_choices():
    with pytest.raises(ValueError, match="swish.*gelu"):
        get_activation("swish")
