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

    # Each output position reads what it holds, on dense tensors (a few dozen ops where ragged
    # slicing and concatenation trace hundreds): [CLS] at 0, A at 1..ka, [SEP] at ka + 1, B at
    # ka + 2..ka + kb + 1, [SEP] after B (when there is a B), padding after that.
    shape = tf.stack([tf.shape(len_a)[0], seq_length])
    position = tf.broadcast_to(tf.range(seq_length)[None, :], shape)
    ka, kb = kept_a[:, None], kept_b[:, None]
    b_end = ka + 2 + kb  # The second [SEP]'s position, where there is a B.
    length = tf.where(has_b[:, None], b_end + 1, ka + 2)

    def piece(ids: tf.RaggedTensor, index: tf.Tensor) -> tf.Tensor:
        dense = ids.to_tensor(0, shape=shape)
        return tf.gather(dense, tf.clip_by_value(index, 0, seq_length - 1), batch_dims=1)

    word_ids = tf.where(position <= ka, piece(ids_a, position - 1), piece(ids_b, position - ka - 2))
    word_ids = tf.where((position == ka + 1) | (position == b_end), sep_id, word_ids)
    word_ids = tf.where(position == 0, cls_id, word_ids)
    mask = position < length
    return {
        "input_word_ids": tf.where(mask, word_ids, 0),
        "input_mask": tf.cast(mask, tf.int32),
        "input_type_ids": tf.cast(mask & (position >= ka + 2), tf.int32),
    }
