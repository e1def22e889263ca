"""In-graph packing of sentence pairs (tokenization/text_packing.py) against the original."""

import numpy as np
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

from albert_tf.tokenization.text_packing import (
    pack_pieces,
    pack_segments,
    pack_segments_reference,
)

CLS, SEP = 2, 3


rows = st.lists(st.integers(min_value=5, max_value=99), max_size=30)


@settings(max_examples=15, deadline=None)
@given(
    pairs=st.lists(st.tuples(rows, rows), min_size=1, max_size=8),
    seq_length=st.integers(min_value=3, max_value=40),
)
def test_pack_segments_equals_reference(pairs, seq_length):
    ids_a = tf.ragged.constant([a for a, _ in pairs], dtype=tf.int32, ragged_rank=1)
    ids_b = tf.ragged.constant([b for _, b in pairs], dtype=tf.int32, ragged_rank=1)
    packed = pack_segments(ids_a, ids_b, seq_length, CLS, SEP)
    for name, values in packed.items():
        assert values.shape == (len(pairs), seq_length)
        expected = [pack_segments_reference(a, b, seq_length, CLS, SEP)[name] for a, b in pairs]
        assert values.numpy().tolist() == expected, name


def test_single_segments_and_empty_rows():
    ids_a = tf.ragged.constant([[10, 11, 12, 13, 14], []], dtype=tf.int32)
    packed = pack_segments(ids_a, None, tf.constant(5), CLS, SEP)
    assert packed["input_word_ids"].numpy().tolist() == [[2, 10, 11, 12, 3], [2, 3, 0, 0, 0]]
    assert packed["input_mask"].numpy().tolist() == [[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]]
    assert packed["input_type_ids"].numpy().tolist() == [[0] * 5, [0] * 5]


def test_works_in_a_tf_function_with_a_tensor_length():
    @tf.function(
        input_signature=[tf.RaggedTensorSpec([None, None], tf.int32), tf.TensorSpec([], tf.int32)]
    )
    def pack(ids, seq_length):
        return pack_segments(ids, ids, seq_length, CLS, SEP)["input_word_ids"]

    got = pack(tf.ragged.constant([[7, 8, 9]], dtype=tf.int32), tf.constant(6)).numpy().tolist()
    assert got == [pack_segments_reference([7, 8, 9], [7, 8, 9], 6, CLS, SEP)["input_word_ids"]]


def test_pack_pieces_with_int32_splits_equals_reference():
    """The flat form LiteRT converts (`export/litert/converter.py`), on int32 ids and splits."""
    rng = np.random.default_rng(0)
    lengths_a = [0, 1, 5, 30, 2, 11]
    lengths_b = [0, 7, 30, 1, 0, 11]
    values = [rng.integers(5, 99, size=n).tolist() for n in lengths_a + lengths_b]
    rows_a, rows_b = values[: len(lengths_a)], values[len(lengths_a) :]

    def pieces(rows):
        splits = np.cumsum([0] + [len(row) for row in rows]).astype(np.int32)
        flat = np.array(sum(rows, []), np.int32)
        return tf.constant(flat), tf.constant(splits)

    for seq_length in (3, 8, 16):
        packed = pack_pieces([pieces(rows_a), pieces(rows_b)], seq_length, CLS, SEP)
        for i, (a, b) in enumerate(zip(rows_a, rows_b, strict=True)):
            want = pack_segments_reference(a, b, seq_length, CLS, SEP)
            for name in want:
                assert packed[name][i].numpy().tolist() == want[name], (seq_length, i, name)
