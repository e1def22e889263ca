"""Tests for albert_tf.training.schedules."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.training.schedules import WarmupPolynomialDecay

STEPS = np.array([0, 1, 7, 50, 99, 100, 101, 400, 999, 1000, 1001, 5000])


def original_learning_rate(
    step, init_lr, num_train_steps, num_warmup_steps, power=1.0, end_lr=0.0, start_warmup_step=0
):
    """NumPy port of the original optimization.create_optimizer learning rate."""
    decay_step = min(step, num_train_steps)  # polynomial_decay(cycle=False)
    learning_rate = (init_lr - end_lr) * (1 - decay_step / num_train_steps) ** power + end_lr
    if num_warmup_steps:
        warmup_step = step - start_warmup_step
        warmup_learning_rate = init_lr * warmup_step / num_warmup_steps
        is_warmup = float(warmup_step < num_warmup_steps)
        learning_rate = (1.0 - is_warmup) * learning_rate + is_warmup * warmup_learning_rate
    return learning_rate


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(warmup_steps=100),
        dict(warmup_steps=0),
        dict(warmup_steps=100, power=2.0, end_learning_rate=1e-5),
        dict(warmup_steps=100, start_warmup_step=20),
    ],
)
def test_values_match_the_original_formula(kwargs):
    schedule = WarmupPolynomialDecay(0.00176, decay_steps=1000, **kwargs)
    actual = np.array([float(schedule(int(step))) for step in STEPS])
    expected = [
        original_learning_rate(
            int(step),
            0.00176,
            1000,
            kwargs["warmup_steps"],
            power=kwargs.get("power", 1.0),
            end_lr=kwargs.get("end_learning_rate", 0.0),
            start_warmup_step=kwargs.get("start_warmup_step", 0),
        )
        for step in STEPS
    ]
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-10)


def test_warmup_starts_at_zero_and_decay_is_not_offset():
    schedule = WarmupPolynomialDecay(1.0, decay_steps=1000, warmup_steps=100)
    assert float(schedule(0)) == 0.0
    # Right after the warmup the rate is already decayed by step / decay_steps.
    np.testing.assert_allclose(float(schedule(100)), 0.9, rtol=1e-6)
    assert float(schedule(2000)) == 0.0


def test_traces_under_xla_with_an_int64_step():
    schedule = WarmupPolynomialDecay(1e-3, decay_steps=1000, warmup_steps=10)
    step = tf.Variable(0, dtype=tf.int64)
    compiled = tf.function(lambda: schedule(step), jit_compile=True)
    values = []
    for value in (5, 10, 500):
        step.assign(value)
        values.append(float(compiled()))
    np.testing.assert_allclose(values, [5e-4, 0.99e-3, 0.5e-3], rtol=1e-6)


def test_serialization_round_trip():
    schedule = WarmupPolynomialDecay(
        2e-3, decay_steps=300, warmup_steps=30, power=0.5, end_learning_rate=1e-6
    )
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(schedule))
    assert isinstance(restored, WarmupPolynomialDecay)
    assert restored.get_config() == schedule.get_config()
    assert float(restored(120)) == float(schedule(120))


def test_round_trip_inside_an_optimizer():
    schedule = WarmupPolynomialDecay(1e-3, decay_steps=100, warmup_steps=10)
    optimizer = keras.optimizers.AdamW(learning_rate=schedule)
    restored = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
    assert isinstance(restored._learning_rate, WarmupPolynomialDecay)
    assert restored._learning_rate.get_config() == schedule.get_config()
    assert float(restored.learning_rate) == 0.0  # iteration 0: start of the warmup


@pytest.mark.parametrize(
    "kwargs, message",
    [(dict(decay_steps=0), "decay_steps"), (dict(decay_steps=10, warmup_steps=-1), "warmup_steps")],
)
def test_rejects_bad_step_counts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        WarmupPolynomialDecay(1e-3, **kwargs)
