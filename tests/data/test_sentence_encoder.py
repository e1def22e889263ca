"""`SentenceEncoder` gives exactly `AlbertTokenizer.encode_batch`'s ids, faster."""

from __future__ import annotations

import numpy as np

from tests.conftest import SAMPLE_TEXT

HARD = ["Café naïve Ångström", "a ¨ b", "tɛ̃ x  y", "the [MASK] Cat", "ΟΔΟΣ", "", "UPPER  case"]


def test_same_ids_as_tokenizer(encoder):
    lines = [line for line in SAMPLE_TEXT.read_text(encoding="utf-8").split("\n") if line]
    sentences = lines[:2000:7] + HARD
    ids, lengths = encoder.encode_flat(sentences)
    expected = encoder.tokenizer.encode_batch(sentences)
    assert lengths.tolist() == [len(x) for x in expected]
    assert ids.tolist() == [i for x in expected for i in x]


def test_normal_pieces_exclude_specials(encoder):
    normal = encoder.normal_piece_ids
    assert not np.isin(normal, [0, 1, 2, 3, 4]).any()
    assert len(normal) == encoder.vocab_size - 5
    assert encoder.word_start_mask[[2, 3, 4]].all()
