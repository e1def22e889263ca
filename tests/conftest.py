"""Fixtures shared by every test folder."""

from __future__ import annotations

import pathlib

import pytest

from albert_tf.tokenization.train import train_sentencepiece

REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
SAMPLE_TEXT = REPO_ROOT / "data" / "sample.txt"
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SMALL_VOCAB_SIZE = 1000


@pytest.fixture(scope="session")
def sample_text_path() -> pathlib.Path:
    """The embedded sample corpus (one sentence per line, blank line between documents)."""
    return SAMPLE_TEXT


@pytest.fixture(scope="session")
def small_model_file(tmp_path_factory) -> str:
    """Path of a 1000-piece lowercased SentencePiece model trained on data/sample.txt (~2 s)."""
    prefix = tmp_path_factory.mktemp("spm") / "sample"
    return train_sentencepiece([str(SAMPLE_TEXT)], str(prefix), vocab_size=SMALL_VOCAB_SIZE)
