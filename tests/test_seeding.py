"""Tests for tests/seeding.py: a test's draws and forms do not depend on the tests before it."""

import random

import numpy as np

from tests.seeding import pytest_runtest_setup, reseed


def _draws() -> list[float]:
    import keras
    import tensorflow as tf

    dense = keras.layers.Dense(1)
    dense.build((None, 1))
    return [
        random.random(),
        float(np.random.rand()),
        float(tf.random.uniform([])),
        float(keras.random.uniform([])),
        float(dense.kernel[0, 0]),
        float(next(iter(tf.data.Dataset.range(100).shuffle(100)))),
    ]


def test_each_test_starts_from_the_same_draws():
    reseed()
    first = _draws()
    # Every generator moves on: what an earlier test on the same worker leaves behind.
    assert all(a != b for a, b in zip(_draws(), first, strict=True))
    reseed()
    assert _draws() == first


def test_the_hook_runs_before_each_test(request):
    hooks = request.config.pluginmanager.hook.pytest_runtest_setup.get_hookimpls()
    assert pytest_runtest_setup in [hook.function for hook in hooks]
