"""Fixtures of the data-builder tests: the sample model's encoder."""

from __future__ import annotations

import pytest

from albert_tf.data.sentence_encoder import SentenceEncoder


@pytest.fixture(scope="session")
def encoder(small_model_file) -> SentenceEncoder:
    """Encoder over the 1000-piece model trained on data/sample.txt."""
    return SentenceEncoder(small_model_file)
