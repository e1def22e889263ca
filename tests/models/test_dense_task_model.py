"""The task models' shared base: earlier `.keras` files load, heads on tokens freeze the pooler."""

from __future__ import annotations

import json
import pathlib

import keras
import numpy as np
import pytest

from albert_tf.models import (
    AlbertClassifier,
    AlbertEncoder,
    AlbertTokenClassifier,
)

DATA = pathlib.Path(__file__).parent / "data"
# Written by the four task model classes as they were before they shared `DenseTaskModel`
# (tiny encoder, non-zero head biases); never regenerate them with the current classes.
SAVED = json.loads((DATA / "task_model_logits.json").read_text())


@pytest.mark.parametrize("name", sorted(SAVED))
def test_earlier_keras_files_load_with_the_same_logits(name):
    model = keras.saving.load_model(DATA / f"{name}.keras")
    inputs = {key: np.asarray(value, np.int32) for key, value in SAVED[name]["inputs"].items()}
    np.testing.assert_allclose(model(inputs, training=False), SAVED[name]["logits"], atol=1e-6)
    # And the round trip through the current classes keeps the config.
    assert type(model).from_config(model.get_config()).get_config() == model.get_config()


@pytest.mark.parametrize("reads_tokens", [True, False])
def test_only_heads_on_tokens_freeze_the_pooler(reads_tokens, tiny_config):
    encoder = AlbertEncoder(tiny_config())
    model = AlbertTokenClassifier(encoder, 3) if reads_tokens else AlbertClassifier(encoder, 3)
    pooler = {id(v) for v in encoder.pooler.weights}
    assert encoder.pooler.trainable is not reads_tokens
    assert bool(pooler & {id(v) for v in model.trainable_variables}) is not reads_tokens
    # A fit of a head on tokens (no gradient-free variables): tests/models/test_span_qa.py.
