"""`value_row_ids` equals `RaggedTensor.value_rowids` (empty rows and batches included)."""

import pytest
import tensorflow as tf

from albert_tf.tokenization.row_ids import value_row_ids


@pytest.mark.parametrize("rows", [[[1, 2], [], [3, 4, 5], []], [[], []], [], [[7]]], ids=str)
@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_equals_value_rowids(rows, dtype):
    ragged = tf.ragged.constant(rows, dtype=tf.int32, ragged_rank=1, row_splits_dtype=dtype)
    got = value_row_ids(ragged.row_splits)
    assert got.dtype == dtype
    assert got.numpy().tolist() == ragged.value_rowids().numpy().tolist()
