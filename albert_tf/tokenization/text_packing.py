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


# (flat int32 ids [N], row splits [B + 1]): one ragged batch as dense tensors.
Pieces = tuple[tf.Tensor, tf.Tensor]
# (flat int32 ids [N], int32 [B]: where each row's kept pieces start in them).
Rows = tuple[tf.Tensor, tf.Tensor]


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
    segments = [ids_a] if ids_b is None else [ids_a, ids_b]
    return pack_pieces(
        [(tf.cast(ids.values, tf.int32), ids.row_splits) for ids in segments],
        seq_length,
        cls_id,
        sep_id,
    )


def pack_pieces(
    segments: list[Pieces], seq_length, cls_id: int, sep_id: int
) -> dict[str, tf.Tensor]:
    """`pack_segments` on one or two segments given as flat ids and row splits.

    Example:
        >>> values, splits = tf.constant([7, 8, 9]), tf.constant([0, 2, 3])
        >>> pack_pieces([(values, splits)], 5, cls_id=2, sep_id=3)["input_word_ids"].numpy()
        array([[2, 7, 8, 3, 0],
               [2, 9, 3, 0, 0]], dtype=int32)
    """
    seq_length = tf.cast(seq_length, tf.int32)
    len_a = _row_lengths(segments[0])
    len_b = _row_lengths(segments[1]) if len(segments) > 1 else tf.zeros_like(len_a)
    has_b = len_b > 0
    # [CLS] A [SEP] leaves seq_length - 2 pieces; a second segment costs one more [SEP].
    budget = seq_length - 2 - tf.cast(has_b, tf.int32)
    kept_a, kept_b = longest_first_lengths(len_a, len_b, budget, xp=tf)
    first = _flat_rows(segments[0])
    second = _flat_rows(segments[1]) if len(segments) > 1 else None
    return pack_kept(first, second, kept_a, kept_b, has_b, seq_length, cls_id, sep_id)


def pack_kept(
    first: Rows,
    second: Rows | None,
    kept_a: tf.Tensor,
    kept_b: tf.Tensor,
    has_b: tf.Tensor,
    seq_length,
    cls_id: int,
    sep_id: int,
) -> dict[str, tf.Tensor]:
    """`[CLS] A [SEP] B [SEP]` per row from the first `kept_a` and `kept_b` pieces of each row's
    A and B, padded to `seq_length`; the second `[SEP]` (and type id 1) only where `has_b`.

    Each output position reads what it holds from the flat ids, on dense tensors: a few dozen
    ops where ragged slicing and concatenation trace hundreds (which every trace, graph load
    and served request pays for).

    Args:
        first, second: segments A and B as (flat int32 ids, int32 start of each row's first
            piece to keep); B may be None (no pieces).
        kept_a, kept_b: int32 `[batch]`, pieces kept of each segment.
        has_b: bool `[batch]`.
        seq_length: the output width.
        cls_id, sep_id: ids of `[CLS]` and `[SEP]`.
    """
    kept_a, kept_b = kept_a[:, None], kept_b[:, None]
    with_b = tf.cast(has_b, tf.int32)[:, None]
    t = tf.range(seq_length)[None, :]
    start_b = kept_a + 2
    end = start_b + kept_b + with_b  # One past the last real token.
    word_ids = _gather_rows(first, t - 1, (t >= 1) & (t <= kept_a))
    word_ids = tf.where(t == 0, cls_id, word_ids)
    word_ids = tf.where((t == kept_a + 1) | ((with_b > 0) & (t == end - 1)), sep_id, word_ids)
    if second is not None:
        in_b = (t >= start_b) & (t < start_b + kept_b)
        word_ids = tf.where(in_b, _gather_rows(second, t - start_b, in_b), word_ids)
    in_sequence = t < end
    # `where`, not a bool cast: the LiteRT converter folds the embeddings' `ids < 0` check on a
    # cast bool into a `zeros_like(bool)` that LiteRT lacks (`export/litert/converter.py` packs
    # with this).
    ones, zeros = tf.ones_like(word_ids), tf.zeros_like(word_ids)
    return {
        "input_word_ids": word_ids,
        "input_mask": tf.where(in_sequence, ones, zeros),
        "input_type_ids": tf.where((t >= start_b) & in_sequence, ones, zeros),
    }


def _row_lengths(pieces: Pieces) -> tf.Tensor:
    splits = tf.cast(pieces[1], tf.int32)
    return splits[1:] - splits[:-1]


def _flat_rows(pieces: Pieces) -> Rows:
    return pieces[0], tf.cast(pieces[1][:-1], tf.int32)


def _gather_rows(rows: Rows, offsets: tf.Tensor, in_segment: tf.Tensor) -> tf.Tensor:
    """ids[b, t] = values[starts[b] + offsets[b, t]] where `in_segment`, else 0."""
    values, starts = rows
    padded = tf.concat([values, tf.zeros([1], values.dtype)], axis=0)  # Never gather from empty.
    index = tf.clip_by_value(starts[:, None] + offsets, 0, tf.shape(values)[0])
    return tf.where(in_segment, tf.gather(padded, index), 0)
