"""Piece offsets into the original text: Python vs in-graph, and on every SQuAD context."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.tokenization.normalize import normalize_text
from albert_tf.tokenization.piece_offsets import (
    encode_with_offsets,
    encode_with_offsets_tf,
    normalize_with_offsets,
)
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from tests.conftest import SHARED_DATA

TRICKY = [
    "  Café  au lait (1998) ﬁx x[MASK]y  ",
    "NAÏVE\u00a0Ångström\tand\n\nthe Ⅻ ½",
    "a ¨b \u0301 c",
    "",
    "   ",
    "tail space ",
    "東京 is ＴＯＫＹＯ",
]


def squad_contexts() -> list[str]:
    contexts = []
    for name in ("v1.1/xquad.en.json", "v2.0/train.json", "v2.0/dev.json"):
        document = json.loads((SHARED_DATA / "squad" / name).read_text(encoding="utf-8"))
        for article in document["data"]:
            contexts += [paragraph["context"] for paragraph in article["paragraphs"]]
    return contexts


@pytest.fixture(scope="module")
def contexts() -> list[str]:
    return squad_contexts()


@pytest.fixture(scope="module")
def tokenizer(tiny_model_file) -> AlbertTokenizer:
    return AlbertTokenizer(tiny_model_file)


def test_normalization_with_offsets_equals_normalize_text(contexts):
    for text in TRICKY + contexts:
        normalized, owner = normalize_with_offsets(text)
        assert normalized == normalize_text(text), text
        assert len(owner) == len(normalized)
        assert np.all(np.diff(owner) >= 0)


def test_pieces_are_the_tokenizer_ids_and_map_to_their_text(tokenizer, contexts):
    for text in TRICKY + contexts[:200]:
        pieces = encode_with_offsets(tokenizer, text)
        assert pieces.ids.tolist() == tokenizer.processor.encode(tokenizer.normalize(text))
        for piece_id, start, end in zip(pieces.ids, pieces.starts, pieces.ends, strict=True):
            surface = text[start:end]
            assert surface == surface.strip()
            piece = tokenizer.id_to_piece(piece_id).lstrip("\u2581")
            if piece and surface.isascii() and piece != "<unk>":
                assert tokenizer.normalize(surface) == piece


@pytest.mark.slow  # Over 5 s: every SQuAD context, in graph and in Python.
def test_in_graph_offsets_equal_python(tokenizer, contexts):
    texts = TRICKY + contexts
    layer = tokenizer.text_tokenizer_layer
    ids, starts, ends = encode_with_offsets_tf(tf.constant(texts), layer.sentencepiece)
    rows = zip(ids.to_list(), starts.to_list(), ends.to_list(), strict=True)
    for text, (row_ids, row_starts, row_ends) in zip(texts, rows, strict=True):
        pieces = encode_with_offsets(tokenizer, text)
        assert row_ids == pieces.ids.tolist(), text
        assert row_starts == pieces.starts.tolist(), text
        assert row_ends == pieces.ends.tolist(), text
