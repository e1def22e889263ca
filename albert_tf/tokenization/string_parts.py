"""Strings split at a separator as flat parts, each with its row and whether it ends the row.

The sparse form of `tf.strings.split` (its raw op) gives each part's row directly; the ragged
form's row ids and the ragged join back trace ~150 ops into every graph that uses them. Join the
parts back with `tf.strings.unsorted_segment_join(parts, rows, num_rows)` (in order).

Example:
    >>> parts, rows, is_last = split_parts(tf.constant(["a_b", "c"]), "_")
    >>> parts.numpy().tolist(), rows.numpy().tolist(), is_last.numpy().tolist()
    ([b'a', b'b', b'c'], [0, 0, 1], [False, True, True])
"""

from __future__ import annotations

import tensorflow as tf


def split_parts(strings: tf.Tensor, sep: str) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """(parts, int64 row of each, whether each is its row's last) of `strings` [N] split at
    `sep` (`tf.strings.split(strings, sep)`'s parts, in order)."""
    indices, parts, _ = tf.raw_ops.StringSplitV2(input=strings, sep=sep, maxsplit=-1)
    rows = indices[:, 0]
    is_last = tf.not_equal(rows, tf.concat([rows[1:], tf.constant([-1], rows.dtype)], axis=0))
    return parts, rows, is_last
