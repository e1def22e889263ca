"""Row bookkeeping of ragged batches from their row splits, in a few dense ops.

`tf.RaggedTensor.value_rowids()` traces ~75 ops (a generic `repeat`) and `tf.ragged.boolean_mask`
~120 (validation, segment sums); a featurizer that needs them several times pays for them in
every trace, graph load and served request. These give the same results for ragged rank 1.

Example:
    >>> value_row_ids(tf.constant([0, 2, 2, 5], tf.int64)).numpy().tolist()
    [0, 0, 2, 2, 2]
    >>> keep_values(tf.ragged.constant([[1, 2, 3], [4]]), tf.constant([True, False, True, False]))
    <tf.RaggedTensor [[1, 3], []]>
"""

from __future__ import annotations

import tensorflow as tf


def value_row_ids(row_splits: tf.Tensor) -> tf.Tensor:
    """`RaggedTensor.from_row_splits(values, row_splits).value_rowids()`, same dtype."""
    positions = tf.range(row_splits[-1], dtype=row_splits.dtype)
    # A value's row is the number of row ends at or before it; empty rows end where they start.
    return tf.searchsorted(row_splits[1:], positions, side="right", out_type=row_splits.dtype)


def keep_values(ragged: tf.RaggedTensor, keep: tf.Tensor) -> tf.RaggedTensor:
    """`tf.ragged.boolean_mask(ragged, ragged.with_values(keep))` for ragged rank 1: the values
    where `keep` (bool, one per value), in their rows."""
    values, splits = keep_flat(ragged.values, ragged.row_splits, keep)
    return tf.RaggedTensor.from_row_splits(values, splits, validate=False)


def keep_flat(values: tf.Tensor, splits: tf.Tensor, keep: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """`keep_values` on flat values [N] and row splits [B + 1]: (kept values, their splits).

    Cumsum, scatter and gather only: LiteRT runs them as builtins (`export/litert/text.py`).
    """
    count = tf.shape(values, out_type=splits.dtype)[0]
    kept = tf.cast(keep, splits.dtype)
    kept_before = tf.cumsum(kept, exclusive=True)
    # Kept values go to their new position; dropped ones to a spare last slot, cut off below.
    target = tf.where(keep, kept_before, count)
    compacted = tf.scatter_nd(target[:, None], values, shape=[count + 1])
    kept_total = tf.reduce_sum(kept)
    new_splits = tf.gather(tf.concat([kept_before, kept_total[None]], axis=0), splits)
    return compacted[:kept_total], new_splits
