"""Text -> encoder inputs with ops LiteRT runs: tensorflow-text's fast SentencePiece + builtins.

The SavedModel featurizer (`AlbertTextFeatures`) cannot be converted as it is: its normalization
(`tf.strings.lower`, `NormalizeUTF8`, `StaticRegexReplace`) and its ragged packing
(`RaggedGather`, `RaggedTensorToTensor`) have no LiteRT kernels (Flex only). Here:

* normalization is a pre-step outside the model: `normalize_text` (albert_tf/tokenization/
  normalize.py) on the host, i.e. Unicode-whitespace collapse, NFKD + removal of combining
  marks (accents), lowercasing. None of the three is expressible with builtin TFLite ops or the
  tensorflow-text LiteRT custom ops. SentencePiece's own normalizer (the model file's rules)
  does run inside, as in `AlbertTokenizer`;
* SentencePiece is `tensorflow_text.FastSentencepieceTokenizer` (custom op
  `TFText>FastSentencepieceTokenize`), which outputs flat ids and row splits;
* dropping a bare "▁" before `[CLS]`/`[SEP]`/`[MASK]` and the packing
  (`[CLS] A [SEP] (B [SEP])`, longest-first truncation, padding) are written on those dense
  tensors with gather/where/cumsum/scatter, so they convert to builtin ops.

`pre-step + model` gives the ids of `AlbertTokenizer` + `pack_segments_reference`
(tests/export/test_litert.py).

Example:
    >>> import tensorflow as tf, tensorflow_text as tf_text
    >>> values = tf.constant([7, 8, 9], tf.int32)
    >>> splits = tf.constant([0, 2, 3], tf.int32)
    >>> pack_dense([(values, splits)], seq_length=5, cls_id=2, sep_id=3)[
    ...     "input_word_ids"].numpy().tolist()
    [[2, 7, 8, 3, 0], [2, 9, 3, 0, 0]]
"""

from __future__ import annotations

import tensorflow as tf

from albert_tf.tokenization.model_proto import CLS_ID, MASK_ID, SEP_ID
from albert_tf.tokenization.truncation import longest_first_lengths

# (flat int32 ids [N], int32 row splits [B + 1]): one ragged batch without RaggedTensor ops.
Pieces = tuple[tf.Tensor, tf.Tensor]
SPECIAL_IDS = (CLS_ID, SEP_ID, MASK_ID)


def tokenize_dense(tokenizer, texts: tf.Tensor, space_id: int) -> Pieces:
    """Pre-normalized strings [B] -> pieces, with the bare "▁" before special tokens dropped.

    Args:
        tokenizer: a `tensorflow_text.FastSentencepieceTokenizer` of the ALBERT model.
        texts: `tf.string` [B], already `normalize_text`-ed.
        space_id: id of the bare "▁" piece, or -1 when the vocabulary has none.
    """
    ragged = tokenizer.tokenize(texts)
    values = tf.cast(ragged.values, tf.int32)
    splits = tf.cast(ragged.row_splits, tf.int32)
    if space_id < 0:
        return values, splits
    return drop_space_before_special(values, splits, space_id)


def drop_space_before_special(values: tf.Tensor, splits: tf.Tensor, space_id: int) -> Pieces:
    """`AlbertTokenizer._drop_space_before_special` on flat ids + splits, in builtin ops."""
    count = tf.shape(values)[0]
    positions = tf.range(count)
    next_values = tf.concat([values[1:], tf.constant([-1], tf.int32)], axis=0)
    next_is_special = tf.reduce_any(
        tf.equal(next_values[:, None], tf.constant(SPECIAL_IDS, tf.int32)[None, :]), axis=1
    )
    # The next piece belongs to the same row unless position + 1 is a row end.
    is_row_end = tf.reduce_any(tf.equal(positions[:, None] + 1, splits[None, 1:]), axis=1)
    drop = tf.equal(values, space_id) & next_is_special & tf.logical_not(is_row_end)
    keep = tf.cast(tf.logical_not(drop), tf.int32)
    kept_before = tf.cumsum(keep, exclusive=True)
    # Kept pieces go to their new position; dropped ones to a spare last slot, cut off below.
    target = tf.where(drop, count, kept_before)
    compacted = tf.scatter_nd(target[:, None], values, shape=[count + 1])
    kept_total = tf.reduce_sum(keep)
    new_splits = tf.gather(tf.concat([kept_before, kept_total[None]], axis=0), splits)
    return compacted[:kept_total], new_splits


def _gather_rows(pieces: Pieces, offsets: tf.Tensor, in_segment: tf.Tensor) -> tf.Tensor:
    """ids[b, t] = values[splits[b] + offsets[b, t]] where `in_segment`, else 0."""
    values, splits = pieces
    padded = tf.concat([values, tf.zeros([1], tf.int32)], axis=0)  # Never gather from empty.
    index = tf.clip_by_value(splits[:-1, None] + offsets, 0, tf.shape(values)[0])
    return tf.where(in_segment, tf.gather(padded, index), 0)


def pack_dense(
    segments: list[Pieces], seq_length: int, cls_id: int = CLS_ID, sep_id: int = SEP_ID
) -> dict[str, tf.Tensor]:
    """One or two segments of pieces -> int32 `[B, seq_length]` encoder inputs.

    Same result as `text_packing.pack_segments` (a second segment with no pieces in a row packs
    that row as a single segment), with builtin ops only.
    """
    first = segments[0]
    len_a = first[1][1:] - first[1][:-1]
    if len(segments) > 1:
        len_b = segments[1][1][1:] - segments[1][1][:-1]
    else:
        len_b = tf.zeros_like(len_a)
    has_b = tf.cast(len_b > 0, tf.int32)
    kept_a, kept_b = longest_first_lengths(len_a, len_b, seq_length - 2 - has_b, xp=tf)
    kept_a, kept_b, has_b = kept_a[:, None], kept_b[:, None], has_b[:, None]
    t = tf.range(seq_length)[None, :]
    start_b = kept_a + 2
    end = start_b + kept_b + has_b  # One past the last real token.
    word_ids = _gather_rows(first, t - 1, (t >= 1) & (t <= kept_a))
    word_ids = tf.where(t == 0, cls_id, word_ids)
    word_ids = tf.where((t == kept_a + 1) | ((has_b > 0) & (t == end - 1)), sep_id, word_ids)
    if len(segments) > 1:
        in_b = (t >= start_b) & (t < start_b + kept_b)
        word_ids = tf.where(in_b, _gather_rows(segments[1], t - start_b, in_b), word_ids)
    in_sequence = t < end
    # `where`, not a bool cast: the converter folds the embeddings' `ids < 0` check on a cast
    # bool into a `zeros_like(bool)` that LiteRT lacks.
    ones, zeros = tf.ones_like(word_ids), tf.zeros_like(word_ids)
    return {
        "input_word_ids": word_ids,
        "input_mask": tf.where(in_sequence, ones, zeros),
        "input_type_ids": tf.where((t >= start_b) & in_sequence, ones, zeros),
    }
