"""In-graph packing of tokenized sentence pairs into ALBERT encoder inputs.

`pack_segments` turns ragged piece ids of segment A (and optionally B) into the fixed-length
`input_word_ids`, `input_mask` and `input_type_ids` of the encoder, as the original
`run_classifier.convert_single_example` does:

    [CLS] A [SEP]          type ids 0 ... 0         (B absent or with no pieces)
    [CLS] A [SEP] B [SEP]  type ids 0 ... 0 1 ... 1

Truncation is the original's longest-first `_truncate_seq_pair` (pop a piece from the end of the
longer segment, from B on ties, until the pair fits), computed in closed form per row
(`truncation.longest_first_lengths`) so that it runs in the graph without a Python loop;
`pack_segments_reference` is the packing in Python (for tests).

Example:
    >>> ids_a = tf.ragged.constant([[10, 11, 12], []])
    >>> ids_b = tf.ragged.constant([[20], []])
    >>> packed = pack_segments(ids_a, ids_b, seq_length=6, cls_id=2, sep_id=3)
    >>> packed["input_word_ids"].numpy().tolist()
    [[2, 10, 11, 3, 20, 3], [2, 3, 0, 0, 0, 0]]
"""

from __future__ import annotations

import tensorflow as tf

from albert_tf.tokenization.truncation import longest_first_lengths, truncate_pair_reference


def pack_segments_reference(
    ids_a: list[int], ids_b: list[int], seq_length: int, cls_id: int, sep_id: int
) -> dict[str, list[int]]:
    """`pack_segments` for one example in pure Python (the reference for tests).

    Example:
        >>> pack_segments_reference([10, 11], [], 5, cls_id=2, sep_id=3)["input_word_ids"]
        [2, 10, 11, 3, 0]
    """
    has_b = len(ids_b) > 0
    kept_a, kept_b = truncate_pair_reference(len(ids_a), len(ids_b), seq_length - 2 - has_b)
    word_ids = [cls_id, *ids_a[:kept_a], sep_id]
    type_ids = [0] * len(word_ids)
    if has_b:
        word_ids += [*ids_b[:kept_b], sep_id]
        type_ids += [1] * (kept_b + 1)
    padding = [0] * (seq_length - len(word_ids))
    return {
        "input_word_ids": word_ids + padding,
        "input_mask": [1] * len(word_ids) + padding,
        "input_type_ids": type_ids + padding,
    }


def _keep_first(ids: tf.RaggedTensor, lengths: tf.Tensor) -> tf.RaggedTensor:
    """Keeps the first `lengths[i]` pieces of row i of a 2-D ragged tensor."""
    row_ids = ids.value_rowids()
    position = tf.range(tf.shape(ids.flat_values, out_type=row_ids.dtype)[0]) - tf.gather(
        ids.row_starts(), row_ids
    )
    keep = position < tf.cast(tf.gather(lengths, row_ids), row_ids.dtype)
    return tf.ragged.boolean_mask(ids, ids.with_flat_values(keep))


def _constant_rows(value: int, row_lengths: tf.Tensor) -> tf.RaggedTensor:
    """Ragged int32 rows filled with `value`, row i of length `row_lengths[i]`."""
    values = tf.fill([tf.reduce_sum(row_lengths)], tf.constant(value, tf.int32))
    return tf.RaggedTensor.from_row_lengths(values, tf.cast(row_lengths, tf.int64))


def pack_segments(
    ids_a: tf.RaggedTensor,
    ids_b: tf.RaggedTensor | None,
    seq_length,
    cls_id: int,
    sep_id: int,
) -> dict[str, tf.Tensor]:
    """Packs ragged int32 piece ids `[batch, None]` into encoder inputs `[batch, seq_length]`.

    Args:
        ids_a: pieces of the first segments.
        ids_b: pieces of the second segments, or None; a row with no pieces is packed as a
            single segment (no second `[SEP]`).
        seq_length: int scalar (Python or tensor), at least 3; sequences are padded with 0 to it.
        cls_id: id of `[CLS]`.
        sep_id: id of `[SEP]`.

    Returns:
        `input_word_ids`, `input_mask`, `input_type_ids`: int32 `[batch, seq_length]`.
    """
    seq_length = tf.cast(seq_length, tf.int32)
    ids_a = tf.cast(ids_a, tf.int32)
    len_a = tf.cast(ids_a.row_lengths(), tf.int32)
    if ids_b is None:
        ids_b = tf.RaggedTensor.from_row_lengths(
            tf.zeros([0], tf.int32), tf.zeros_like(ids_a.row_lengths())
        )
    ids_b = tf.cast(ids_b, tf.int32)
    len_b = tf.cast(ids_b.row_lengths(), tf.int32)
    has_b = len_b > 0
    # [CLS] A [SEP] leaves seq_length - 2 pieces; a second segment costs one more [SEP].
    budget = seq_length - 2 - tf.cast(has_b, tf.int32)
    kept_a, kept_b = longest_first_lengths(len_a, len_b, budget, xp=tf)
    ids_a, ids_b = _keep_first(ids_a, kept_a), _keep_first(ids_b, kept_b)

    ones = tf.ones_like(len_a)
    cls = _constant_rows(cls_id, ones)
    sep = _constant_rows(sep_id, ones)
    sep_b = _constant_rows(sep_id, tf.cast(has_b, tf.int32))
    word_ids = tf.concat([cls, ids_a, sep, ids_b, sep_b], axis=1)
    type_ids = tf.concat(
        [
            _constant_rows(0, kept_a + 2),
            _constant_rows(1, kept_b + tf.cast(has_b, tf.int32)),
        ],
        axis=1,
    )
    mask = tf.ones_like(word_ids)
    shape = tf.stack([tf.shape(len_a)[0], seq_length])
    return {
        "input_word_ids": word_ids.to_tensor(0, shape=shape),
        "input_mask": mask.to_tensor(0, shape=shape),
        "input_type_ids": type_ids.to_tensor(0, shape=shape),
    }
