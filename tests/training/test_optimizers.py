"""Tests for albert_tf.training.optimizers.create_optimizer."""

from __future__ import annotations

import re

import keras
import numpy as np
import pytest

from albert_tf.training.lamb import Lamb
from albert_tf.training.optimizers import create_optimizer
from albert_tf.training.schedules import WarmupPolynomialDecay

LEARNING_RATE = 0.1
WEIGHT_DECAY = 0.01


def make_model() -> keras.Model:
    """Kernels, biases, embeddings and LayerNorm weights under both spellings."""
    token_ids = keras.Input((4,), dtype="int32")
    embedded = keras.layers.Embedding(10, 6, name="word_embeddings")(token_ids)
    embedded = keras.layers.LayerNormalization(name="LayerNorm")(embedded)
    hidden = keras.layers.Dense(6, name="dense")(embedded)
    hidden = keras.layers.LayerNormalization()(hidden)  # default name "layer_normalization"
    return keras.Model(token_ids, hidden)


def decayed_paths_after_zero_gradient_step(optimizer) -> dict[str, float]:
    """Applies zero gradients and returns, per variable path, new / old values.

    With zero gradients the moments stay 0, so only weight decay moves a
    variable: excluded variables keep a ratio of exactly 1.
    """
    model = make_model()
    for variable in model.trainable_variables:  # LayerNorm starts at 1/0: make all non-zero.
        variable.assign(np.full(variable.shape, 2.0, "float32"))
    zeros = [keras.ops.zeros(v.shape) for v in model.trainable_variables]
    optimizer.apply(zeros, model.trainable_variables)
    # Auto-named layers get a "_N" suffix when several models are built.
    return {
        re.sub(r"layer_normalization_\d+", "layer_normalization", v.path): float(np.mean(v.numpy()))
        / 2.0
        for v in model.trainable_variables
    }


def only_kernels_and_embeddings_decayed(decayed: float) -> dict[str, float]:
    """The expected ratios when LayerNorm and bias variables are excluded from weight decay."""
    return {
        "word_embeddings/embeddings": decayed,
        "LayerNorm/gamma": 1.0,
        "LayerNorm/beta": 1.0,
        "dense/kernel": decayed,
        "dense/bias": 1.0,
        "layer_normalization/gamma": 1.0,
        "layer_normalization/beta": 1.0,
    }


def test_lamb_has_the_original_settings():
    optimizer = create_optimizer(
        "lamb", learning_rate=0.00176, num_train_steps=125_000, num_warmup_steps=3125
    )
    assert isinstance(optimizer, Lamb)
    assert optimizer.weight_decay_rate == WEIGHT_DECAY
    assert optimizer.epsilon == 1e-6
    assert (optimizer.beta_1, optimizer.beta_2) == (0.9, 0.999)
    assert optimizer.global_clipnorm == 1.0
    assert optimizer.bias_correction is False
    assert optimizer.exclude_from_weight_decay_patterns == ("LayerNorm", "layer_norm", "bias")
    schedule = optimizer._learning_rate
    assert isinstance(schedule, WarmupPolynomialDecay)
    assert (schedule.initial_learning_rate, schedule.decay_steps, schedule.warmup_steps) == (
        0.00176,
        125_000,
        3125,
    )


def test_lamb_decays_kernels_and_embeddings_only():
    optimizer = create_optimizer(
        "lamb", learning_rate=LEARNING_RATE, num_train_steps=10, num_warmup_steps=0
    )
    ratios = decayed_paths_after_zero_gradient_step(optimizer)
    # u = wd * w, trust ratio ||w|| / ||wd * w|| = 1 / wd: w -= lr * w.
    decayed = 1.0 - LEARNING_RATE
    assert ratios == pytest.approx(only_kernels_and_embeddings_decayed(decayed), rel=1e-6)


def test_adamw_excludes_layer_norm_and_bias():
    optimizer = create_optimizer(
        "adamw", learning_rate=LEARNING_RATE, num_train_steps=10, num_warmup_steps=0
    )
    assert isinstance(optimizer, keras.optimizers.AdamW)
    assert optimizer.weight_decay == WEIGHT_DECAY
    ratios = decayed_paths_after_zero_gradient_step(optimizer)
    decayed = 1.0 - LEARNING_RATE * WEIGHT_DECAY  # decoupled: w -= lr * wd * w
    assert ratios == pytest.approx(only_kernels_and_embeddings_decayed(decayed), rel=1e-6)


@pytest.mark.parametrize("name", ["lamb", "adamw"])
def test_warmup_schedule_accumulation_and_round_trip(name):
    optimizer = create_optimizer(
        name,
        learning_rate=1e-3,
        num_train_steps=100,
        num_warmup_steps=10,
        weight_decay=0.02,
        global_clipnorm=None,
        gradient_accumulation_steps=2,
        bias_correction=True,
    )
    assert float(optimizer.learning_rate) == 0.0
    assert optimizer.gradient_accumulation_steps == 2
    assert optimizer.global_clipnorm is None
    restored = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
    assert type(restored) is type(optimizer)
    assert restored.get_config() == optimizer.get_config()


def test_unknown_name_is_rejected():
    with pytest.raises(ValueError, match="'sgd'.*lamb"):
        create_optimizer("sgd", learning_rate=1e-3, num_train_steps=10, num_warmup_steps=1)
