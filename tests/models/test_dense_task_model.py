"""The task models' shared base: earlier `.keras` files load, heads on tokens freeze the pooler."""

from __future__ import annotations

import json
import pathlib
import warnings

import keras
import numpy as np
import pytest

from albert_tf.models import (
    AlbertClassifier,
    AlbertEncoder,
    AlbertSpanQA,
    AlbertTokenClassifier,
    span_loss,
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


@pytest.mark.slow  # Compiles and runs a training step.
def test_span_qa_trains_without_gradient_free_variables(tiny_config):
    encoder = AlbertEncoder(tiny_config())
    ids = np.array([[2, 5, 6, 3], [2, 7, 3, 0]], np.int32)
    features = {"input_word_ids": ids, "input_mask": (ids > 0).astype(np.int32)}
    features["input_type_ids"] = np.zeros_like(ids)
    model = AlbertSpanQA(encoder)
    model.compile(optimizer="adam", loss=span_loss)
    before = encoder.pooler.get_weights()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(features, np.array([[1, 2], [1, 1]]), epochs=1, verbose=0)
    assert not [w for w in caught if "Gradients do not exist" in str(w.message)]
    for was, now in zip(before, encoder.pooler.get_weights(), strict=True):
        np.testing.assert_array_equal(was, now)
