"""The classifier export's text signature takes hostile batches (see tests/hostile_text.py)."""

from __future__ import annotations

import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops of the SavedModel)

from tests.hostile_text import HOSTILE_BATCHES, assert_serves, hostile_batch

pytestmark = pytest.mark.slow  # Needs the trained classification run.


@pytest.fixture(scope="module")
def served(finetuned_run):
    _, results = finetuned_run
    return tf.saved_model.load(results["saved_model"])


@pytest.mark.parametrize("name", list(HOSTILE_BATCHES))
def test_classify_text_takes_hostile_batches(served, name):
    batch = hostile_batch(name)
    assert_serves(served.signatures["classify_text"], batch, text_a=batch)
