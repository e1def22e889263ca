"""`AlbertInputPacker`: layout, longest-first truncation against the original pop loop."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.tokenization.input_packer import AlbertInputPacker
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID


def original_truncate_seq_pair(tokens_a: list, tokens_b: list, max_length: int) -> None:
    """The original run_classifier `_truncate_seq_pair`, in place."""
    while len(tokens_a) + len(tokens_b) > max_length:
        if len(tokens_a) > len(tokens_b):
            tokens_a.pop()
        else:
            tokens_b.pop()


def original_pack(tokens_a: list, tokens_b: list | None, seq_length: int) -> tuple:
    """The original convert_single_example: [CLS] A [SEP] (B [SEP]), then zero padding."""
    tokens_a = list(tokens_a)
    if tokens_b:
        tokens_b = list(tokens_b)
        original_truncate_seq_pair(tokens_a, tokens_b, seq_length - 3)
    else:
        tokens_a = tokens_a[: seq_length - 2]
    ids = [CLS_ID, *tokens_a, SEP_ID]
    types = [0] * len(ids)
    if tokens_b:
        ids += [*tokens_b, SEP_ID]
        types += [1] * (len(tokens_b) + 1)
    pad = seq_length - len(ids)
    return ids + [0] * pad, [1] * len(ids) + [0] * pad, types + [0] * pad


# From seq_length 5 on (budget >= 2), truncation never empties a non-empty B; below that
# the original also drops the second [SEP] of an emptied B, pack_segments keeps it.
@pytest.mark.parametrize("seq_length", [5, 8, 11])
def test_pairs_match_the_original_packing(seq_length):
    rng = np.random.default_rng(seq_length)
    rows_a = [list(rng.integers(10, 99, size=n)) for n in rng.integers(0, 15, size=40)]
    rows_b = [list(rng.integers(100, 200, size=n)) for n in rng.integers(0, 15, size=40)]
    packed = AlbertInputPacker(seq_length)(
        [tf.ragged.constant(rows_a, tf.int32), tf.ragged.constant(rows_b, tf.int32)]
    )
    expected = [original_pack(a, b, seq_length) for a, b in zip(rows_a, rows_b, strict=True)]
    for column, name in enumerate(("input_word_ids", "input_mask", "input_type_ids")):
        assert packed[name].numpy().tolist() == [row[column] for row in expected], name


def test_single_segment_and_static_shape():
    rows = [[5, 6, 7, 8, 9, 10], [11], []]
    packer = AlbertInputPacker(5)
    packed = packer(tf.ragged.constant(rows, tf.int32))
    expected = [original_pack(row, None, 5) for row in rows]
    for column, name in enumerate(("input_word_ids", "input_mask", "input_type_ids")):
        assert packed[name].numpy().tolist() == [row[column] for row in expected], name

    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
    def traced(ids):
        return packer(ids)

    spec = traced.get_concrete_function().structured_outputs["input_word_ids"]
    assert spec.shape.as_list() == [None, 5]


def test_config_round_trip_and_errors():
    packer = AlbertInputPacker(16, name="packer")
    restored = AlbertInputPacker.from_config(packer.get_config())
    assert restored.seq_length == 16 and restored.name == "packer"
    with pytest.raises(ValueError, match="seq_length must be >= 3"):
        AlbertInputPacker(2)
    with pytest.raises(ValueError, match="1 or 2 segments"):
        packer([tf.ragged.constant([[1]])] * 3)
