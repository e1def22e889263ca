"""`AlbertTokenClassifier`: per-position logits, .keras round trip with its tags, bf16 head."""

from __future__ import annotations

import keras
import numpy as np
import pytest

from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.token_classifier import AlbertTokenClassifier
from tests.models.test_classifier import BATCH, LENGTH, random_features

TAGS = ("O", "B-PER", "I-PER")


def test_round_trip_keeps_config_tags_and_predictions(tiny_config, tmp_path):
    model = AlbertTokenClassifier(AlbertEncoder(tiny_config()), 3, dropout_rate=0.2, labels=TAGS)
    features = random_features(tiny_config().vocab_size)
    logits = model.predict(features, verbose=0)
    assert logits.shape == (BATCH, LENGTH, 3) and logits.dtype == np.float32
    path = str(tmp_path / "tagger.keras")
    model.save(path)
    restored = keras.saving.load_model(path)
    assert isinstance(restored, AlbertTokenClassifier)
    assert restored.labels == TAGS and restored.dropout_rate == 0.2
    np.testing.assert_allclose(restored.predict(features, verbose=0), logits, atol=1e-5)


def test_positions_see_their_own_tokens(tiny_config):
    """Changing one token changes the logits there (the head is per position, not pooled)."""
    model = AlbertTokenClassifier(AlbertEncoder(tiny_config()), 3)
    features = random_features(tiny_config().vocab_size)
    changed = {name: value.copy() for name, value in features.items()}
    changed["input_word_ids"][0, 1] = (changed["input_word_ids"][0, 1] + 1) % 90 + 5
    before = model.predict(features, verbose=0)
    after = model.predict(changed, verbose=0)
    assert np.abs(after[0, 1] - before[0, 1]).max() > 1e-4
    np.testing.assert_allclose(after[1:], before[1:], atol=1e-6)  # Other rows: untouched.


def test_mixed_precision_head_gives_float32_logits(tiny_config):
    model = AlbertTokenClassifier(AlbertEncoder(tiny_config()), 4, dtype="mixed_bfloat16")
    logits = model(random_features(tiny_config().vocab_size), training=False)
    assert keras.backend.standardize_dtype(logits.dtype) == "float32"


def test_bad_arguments(tiny_config):
    with pytest.raises(TypeError, match="AlbertEncoder"):
        AlbertTokenClassifier("encoder", 3)
    with pytest.raises(ValueError, match="2 labels for num_labels=3"):
        AlbertTokenClassifier(AlbertEncoder(tiny_config()), 3, labels=["O", "B-X"])


def test_head_starts_at_the_label_prior(tiny_config):
    """Zero features give the prior's log-probabilities (add-one smoothed counts)."""
    model = AlbertTokenClassifier(AlbertEncoder(tiny_config()), 3, dropout_rate=0.0)
    model.start_at_label_prior([97, 1, 0])
    np.testing.assert_allclose(
        model.head.bias.numpy(), np.log(np.array([98, 2, 1]) / 101), rtol=1e-6
    )
    with pytest.raises(ValueError, match="2 label counts for a head of 3 units"):
        model.start_at_label_prior([1, 2])
