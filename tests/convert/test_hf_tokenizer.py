"""Tokenizer parity: albert_tf's AlbertTokenizer vs transformers.AlbertTokenizer on one model."""

from __future__ import annotations

import shutil

import pytest
import transformers

from albert_tf.convert.hf_tokenizer import write_hf_tokenizer
from albert_tf.tokenization import AlbertTokenizer, normalize_text
from tests.conftest import SAMPLE_TEXT

EXTRA_STRINGS = [
    "Café naïve Ångström ﬁ ｆｕｌｌ",
    "a (b) c-d 1,725 £ 4 € x.y",
    "multiple   spaces\t\ttabs",
    "the [MASK] cat [SEP] x",
    "",
]


@pytest.fixture(scope="module")
def hf_tokenizer_dir(small_model_file, tmp_path_factory) -> str:
    directory = tmp_path_factory.mktemp("hf_tokenizer")
    write_hf_tokenizer(small_model_file, str(directory))
    return str(directory)


@pytest.fixture(scope="module")
def sample_lines() -> list[str]:
    return SAMPLE_TEXT.read_text(encoding="utf-8").split("\n") + EXTRA_STRINGS


def test_ids_identical_on_sample_text(small_model_file, hf_tokenizer_dir, sample_lines):
    ours = AlbertTokenizer(small_model_file)
    theirs = transformers.AutoTokenizer.from_pretrained(hf_tokenizer_dir)
    assert isinstance(theirs, transformers.AlbertTokenizer)
    different = [
        line
        for line in sample_lines
        if ours.encode(normalize_text(line, map_quotes=True))
        != theirs.encode(line, add_special_tokens=False)
    ]
    assert different == []
    assert len(sample_lines) > 1000


def test_pair_layout_matches_albert(small_model_file, hf_tokenizer_dir):
    ours = AlbertTokenizer(small_model_file)
    encoded = transformers.AlbertTokenizer.from_pretrained(hf_tokenizer_dir)("The game .", "It was")
    first, second = ours.encode("The game ."), ours.encode("It was")
    assert encoded["input_ids"] == [2, *first, 3, *second, 3]
    assert encoded["token_type_ids"] == [0] * (len(first) + 2) + [1] * (len(second) + 1)


def test_quote_mapping_is_the_documented_difference(small_model_file, hf_tokenizer_dir):
    ours = AlbertTokenizer(small_model_file)
    theirs = transformers.AlbertTokenizer.from_pretrained(hf_tokenizer_dir)
    text = "he said ``yes'' ."
    hf_ids = theirs.encode(text, add_special_tokens=False)
    assert ours.encode(text) != hf_ids  # The original ALBERT keeps `` and ''.
    assert ours.encode(normalize_text(text, map_quotes=True)) == hf_ids


def test_bare_spiece_model_splits_user_symbols_differently(small_model_file, tmp_path):
    """Why we write tokenizer.json: HF's own conversion makes user symbols added tokens."""
    shutil.copyfile(small_model_file, tmp_path / "spiece.model")
    bare = transformers.AlbertTokenizer.from_pretrained(str(tmp_path))
    ours = AlbertTokenizer(small_model_file)
    text = "a (b"
    assert ours.tokenize(text) == ["▁a", "▁", "(", "b"]
    assert bare.tokenize(text) == ["▁a", "(", "▁", "b"]  # "▁" moved after "("
