"""Shared fixtures: one small SentencePiece model trained on data/sample.txt per session."""

from __future__ import annotations

import pytest

from albert_tf.tokenization.tokenizer import AlbertTokenizer
from albert_tf.tokenization.train import train_sentencepiece
from tests.conftest import SAMPLE_TEXT, SMALL_VOCAB_SIZE

# Hand-made hard cases shared by the normalization and tokenizer tests.
HARD_STRINGS = [
    "Café naïve Ångström",
    "Crème Brûlée à la MODE",
    "日本語のテキスト、戦場のヴァルキュリア3",
    "Привет, МИР! Ёлка",
    "مرحبا بالعالم",
    "ΟΔΟΣ Σ ΣΑ",  # final sigma when lowercasing
    "İstanbul ß ẞ ǅ ﬁ ｆｕｌｌ Ⅻ",
    "67,",
    "1,725 2.5 -3.14e10 $1,000.00",
    "multiple   spaces\t\ttabs\n\nnewlines\r\n",
    "\u00a0non-breaking\u3000ideographic\u2009thin ",
    "a ¨ b",  # NFKD gives space + combining mark
    "",
    "   ",
    "the [MASK] cat",
    "[MASK]",
    "The [MASK] and [mask], [CLS] x [SEP] y",
    "no[MASK]space",
    "UPPER CASE Text",
    "``quoted'' text",
    "nul\x00 byte\x00",
]


@pytest.fixture(scope="session")
def sample_lines() -> list[str]:
    """Every line of data/sample.txt (blank document separators included)."""
    return SAMPLE_TEXT.read_text(encoding="utf-8").split("\n")


@pytest.fixture(scope="session")
def cased_model_file(tmp_path_factory) -> str:
    """Same corpus, trained without lowercasing."""
    prefix = tmp_path_factory.mktemp("spm_cased") / "sample"
    return train_sentencepiece(
        [str(SAMPLE_TEXT)], str(prefix), vocab_size=SMALL_VOCAB_SIZE, do_lower_case=False
    )


@pytest.fixture(scope="session")
def tokenizer(small_model_file) -> AlbertTokenizer:
    return AlbertTokenizer(small_model_file)


@pytest.fixture(scope="session")
def cased_tokenizer(cased_model_file) -> AlbertTokenizer:
    return AlbertTokenizer(cased_model_file, do_lower_case=False)


@pytest.fixture(scope="session")
def hard_strings() -> list[str]:
    return list(HARD_STRINGS)


@pytest.fixture(scope="session")
def all_test_strings(sample_lines, hard_strings) -> list[str]:
    """Every sample.txt line plus the hand-made cases."""
    return sample_lines + hard_strings
