"""Fixtures of the data-builder tests: the sample model's encoder and small corpora."""

from __future__ import annotations

import pytest

from albert_tf.data.sentence_encoder import SentenceEncoder


@pytest.fixture(scope="session")
def encoder(small_model_file) -> SentenceEncoder:
    """Encoder over the 1000-piece model trained on data/sample.txt."""
    return SentenceEncoder(small_model_file)


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory, sample_text_path) -> str:
    """The first 6 documents of data/sample.txt (fast end-to-end builds)."""
    documents = sample_text_path.read_text(encoding="utf-8").split("\n\n")[:6]
    path = tmp_path_factory.mktemp("corpus") / "small.txt"
    path.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    return str(path)
