"""`ragged_rows` equals `tf.ragged`'s own forms (empty rows and batches included)."""

import pytest
import tensorflow as tf

from albert_tf.tokenization.ragged_rows import keep_values, value_row_ids

ROWS = [[[1, 2], [], [3, 4, 5], []], [[], []], [], [[7]]]


@pytest.mark.parametrize("rows", ROWS, ids=str)
@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_value_row_ids_equal_value_rowids(rows, dtype):
    ragged = tf.ragged.constant(rows, dtype=tf.int32, ragged_rank=1, row_splits_dtype=dtype)
    got = value_row_ids(ragged.row_splits)
    assert got.dtype == dtype
    assert got.numpy().tolist() == ragged.value_rowids().numpy().tolist()


@pytest.mark.parametrize("rows", ROWS, ids=str)
def test_keep_values_equals_boolean_mask(rows):
    ragged = tf.ragged.constant(rows, dtype=tf.int32, ragged_rank=1)
    keep = ragged.values % 2 == 1
    want = tf.ragged.boolean_mask(ragged, ragged.with_values(keep))
    assert keep_values(ragged, keep).to_list() == want.to_list()
