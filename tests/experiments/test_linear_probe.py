"""The logistic-regression probe."""

from __future__ import annotations

import numpy as np
import pytest

from albert_tf.experiments.evaluation import binomial_standard_error
from albert_tf.experiments.linear_probe import LinearProbe


def test_separable_data_is_learned_and_deterministic():
    rng = np.random.default_rng(0)
    features = rng.normal(size=(400, 5))
    labels = (features @ np.array([1.0, -2.0, 0.5, 0.0, 0.0]) > 0).astype(int)
    first = LinearProbe().fit(features[:200], labels[:200])
    second = LinearProbe().fit(features[:200], labels[:200])
    assert first.accuracy(features[200:], labels[200:]) > 0.95
    np.testing.assert_array_equal(first.weights, second.weights)


def test_noise_is_near_chance():
    rng = np.random.default_rng(1)
    features = rng.normal(size=(2000, 8))
    labels = rng.integers(0, 2, size=2000)
    probe = LinearProbe().fit(features[:1000], labels[:1000])
    assert abs(probe.accuracy(features[1000:], labels[1000:]) - 0.5) < 0.06


def test_binomial_standard_error():
    assert binomial_standard_error(0.9, 900) == pytest.approx(0.01)
    assert np.isnan(binomial_standard_error(float("nan"), 10))
    assert np.isnan(binomial_standard_error(0.5, 0))
