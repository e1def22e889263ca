"""Whole-word n-gram masking (ALBERT's `create_masked_lm_predictions`), vectorized.

Per instance, as the original:

- candidates are whole words (a word = a start piece and the continuation pieces after
  it, see `token_boundary`); [CLS] and [SEP] are never candidates;
- budget = min(max_predictions_per_seq, max(1, round(len(tokens) * masked_lm_prob)));
- candidate words are visited in random order; at each, n in 1..ngram is drawn with
  p(n) proportional to 1/n (`favor_shorter_ngram`, else uniform), n counted in words;
  n shrinks while the n-gram's pieces exceed the remaining budget (skipped when even
  one word does not fit) and the n-gram is skipped when it overlaps masked words;
- each masked piece: 80% [MASK], 10% kept, 10% a random piece;
- masked positions are sorted.

Fixes of the original's quirks: every draw comes from the seeded generator (the original
used NumPy's unseeded global RNG for n); an n-gram ends at the end of its segment, so it
never reaches across [SEP]; random replacements are ordinary pieces only (never
<pad>/<unk>/[CLS]/[SEP]/[MASK]).

The visit is vectorized across instances: round r handles each instance's r-th candidate
with NumPy ops over all instances still under budget. It is the same random process as
the original's per-instance loop.

Illustration (not run):
    masked = mask_instances(features, MaskingOptions(max_predictions_per_seq=20),
                            cls_id=2, sep_id=3, mask_id=4, normal_piece_ids=ids, rng=rng)
    masked.positions.shape
    (N, 20)
"""

from __future__ import annotations

import dataclasses

import numpy as np

from albert_tf.config_fields import check_range


@dataclasses.dataclass(frozen=True)
class MaskingOptions:
    """Masking flags with the original names and defaults.

    Example:
        >>> MaskingOptions().ngram_probabilities().round(3).tolist()
        [0.545, 0.273, 0.182]
    """

    max_predictions_per_seq: int = 20
    masked_lm_prob: float = 0.15
    ngram: int = 3
    favor_shorter_ngram: bool = True
    do_whole_word_mask: bool = True

    def __post_init__(self):
        check_range("ngram", self.ngram, low=1)
        check_range("max_predictions_per_seq", self.max_predictions_per_seq, low=1)
        check_range("masked_lm_prob", self.masked_lm_prob, 0.0, 1.0, high_open=False)

    def ngram_probabilities(self) -> np.ndarray:
        """p(n) for n = 1..ngram."""
        weights = 1.0 / np.arange(1, self.ngram + 1) if self.favor_shorter_ngram else None
        weights = np.ones(self.ngram) if weights is None else weights
        return weights / weights.sum()

    def budget(self, num_tokens: np.ndarray) -> np.ndarray:
        """Pieces to mask for sequences of `num_tokens` real pieces (with [CLS]/[SEP])."""
        wanted = np.maximum(1, np.rint(num_tokens * self.masked_lm_prob).astype(np.int64))
        return np.minimum(self.max_predictions_per_seq, wanted)


@dataclasses.dataclass(frozen=True)
class MaskedInstances:
    """Masking result for N instances (P = max_predictions_per_seq).

    Attributes:
        input_ids: int32 [N, L], ids after replacement.
        positions: int32 [N, P], sorted masked positions, zero padded.
        label_ids: int32 [N, P], original ids at those positions, zero padded.
        weights: float32 [N, P], 1.0 for real predictions.
        ngram_counts: int64 [ngram + 1], accepted n-grams by length in words (index n).
        replacement_counts: int64 [3], masked pieces that became [MASK] / kept / random.
    """

    input_ids: np.ndarray
    positions: np.ndarray
    label_ids: np.ndarray
    weights: np.ndarray
    ngram_counts: np.ndarray
    replacement_counts: np.ndarray


def _word_table(candidate: np.ndarray, starts: np.ndarray, segment_ids: np.ndarray):
    """Per instance, its words as padded [N, W] arrays: first position, pieces, segment."""
    num_rows, length = candidate.shape
    word_number = np.cumsum(starts, axis=1) - 1
    num_words = starts.sum(axis=1)
    width = int(num_words.max(initial=0))
    rows, cols = np.nonzero(starts)
    rank = word_number[rows, cols]
    # A word ends at the next word start or non-candidate ([SEP], padding).
    stop = starts | ~candidate
    stop_index = np.where(stop, np.arange(length), length)
    next_stop = np.minimum.accumulate(stop_index[:, ::-1], axis=1)[:, ::-1]
    next_stop = np.concatenate([next_stop, np.full((num_rows, 1), length)], axis=1)
    word_pieces = np.zeros((num_rows, width), dtype=np.int64)
    word_pieces[rows, rank] = next_stop[rows, cols + 1] - cols
    word_segment = np.full((num_rows, width), -1, dtype=np.int64)
    word_segment[rows, rank] = segment_ids[rows, cols]
    return word_number, num_words, width, word_pieces, word_segment


def _words_left_in_segment(word_segment: np.ndarray, num_words: np.ndarray) -> np.ndarray:
    """[N, W]: words from w to the end of w's segment (A words come before B words)."""
    width = word_segment.shape[1]
    index = np.arange(width)[None, :]
    a_words = (word_segment == 0).sum(axis=1, keepdims=True)
    segment_end = np.where(word_segment == 0, a_words, num_words[:, None])
    return np.maximum(segment_end - index, 0)


def _choose_words(
    word_pieces, words_left, num_words, budget, options: MaskingOptions, rng: np.random.Generator
):
    """The original's sequential visit, run for all instances in lock step.

    Returns bool [N, W] masked words and accepted n-gram counts by length in words.
    """
    num_rows, width = word_pieces.shape
    ngram = options.ngram
    valid = np.arange(width)[None, :] < num_words[:, None]
    order = np.argsort(np.where(valid, rng.random((num_rows, width)), 2.0), axis=1)
    drawn_n = rng.choice(
        np.arange(1, ngram + 1), size=(num_rows, width), p=options.ngram_probabilities()
    )
    piece_sums = np.zeros((num_rows, width + ngram + 1), dtype=np.int64)
    np.cumsum(word_pieces, axis=1, out=piece_sums[:, 1 : width + 1])
    piece_sums[:, width + 1 :] = piece_sums[:, width : width + 1]
    covered = np.zeros((num_rows, width + ngram), dtype=bool)
    masked = np.zeros(num_rows, dtype=np.int64)
    ngram_counts = np.zeros(ngram + 1, dtype=np.int64)
    rows = np.flatnonzero(num_words > 0)
    for step in range(width):
        rows = rows[(step < num_words[rows]) & (masked[rows] < budget[rows])]
        if not len(rows):
            break
        word = order[rows, step]
        longest = np.minimum(drawn_n[rows, step], words_left[rows, word])
        room = budget[rows] - masked[rows]
        base = piece_sums[rows, word]
        chosen = np.zeros(len(rows), dtype=np.int64)
        chosen_pieces = np.zeros(len(rows), dtype=np.int64)
        for n in range(ngram, 0, -1):  # the longest n <= drawn n that fits the budget
            pieces = piece_sums[rows, word + n] - base
            fits = (chosen == 0) & (n <= longest) & (pieces <= room)
            chosen = np.where(fits, n, chosen)
            chosen_pieces = np.where(fits, pieces, chosen_pieces)
        overlap = np.zeros(len(rows), dtype=bool)
        for offset in range(ngram):
            overlap |= (offset < chosen) & covered[rows, word + offset]
        accept = (chosen > 0) & ~overlap
        for offset in range(ngram):
            take = accept & (offset < chosen)
            covered[rows[take], word[take] + offset] = True
        masked[rows] += np.where(accept, chosen_pieces, 0)
        ngram_counts += np.bincount(chosen[accept], minlength=ngram + 1)
    return covered[:, :width], ngram_counts


def mask_instances(
    features: dict[str, np.ndarray],
    options: MaskingOptions,
    cls_id: int,
    sep_id: int,
    mask_id: int,
    normal_piece_ids: np.ndarray,
    rng: np.random.Generator,
) -> MaskedInstances:
    """Masks instances laid out by `assemble_instances` (see module docstring).

    Args:
        features: int arrays [N, L] `input_ids`, `input_mask`, `segment_ids`,
            `token_boundary`.
        options: budget and n-gram flags.
        cls_id, sep_id, mask_id: special ids.
        normal_piece_ids: ids a random replacement may take.
        rng: the generator of every draw.
    """
    input_ids = features["input_ids"]
    num_rows = input_ids.shape[0]
    real = features["input_mask"].astype(bool)
    candidate = real & (input_ids != cls_id) & (input_ids != sep_id)
    # A candidate right after a non-candidate ([CLS], [SEP]) always starts a word,
    # even if `token_boundary` says otherwise (records cut at the front by others).
    previous_candidate = np.zeros_like(candidate)
    previous_candidate[:, 1:] = candidate[:, :-1]
    starts = candidate & (
        features["token_boundary"].astype(bool)
        | ~previous_candidate
        | (not options.do_whole_word_mask)
    )
    word_number, num_words, width, word_pieces, word_segment = _word_table(
        candidate, starts, features["segment_ids"]
    )
    budget = options.budget(real.sum(axis=1))
    words_left = _words_left_in_segment(word_segment, num_words)
    masked_words, ngram_counts = _choose_words(
        word_pieces, words_left, num_words, budget, options, rng
    )
    if width == 0:
        masked_words = np.zeros((num_rows, 1), dtype=bool)
    masked_position = (
        candidate & masked_words[np.arange(num_rows)[:, None], np.clip(word_number, 0, None)]
    )
    rows, cols = np.nonzero(masked_position)
    labels = input_ids[rows, cols]
    # 80% [MASK], 10% kept, 10% random ordinary piece (the original's two coin flips).
    first, second = rng.random(len(rows)), rng.random(len(rows))
    random_ids = normal_piece_ids[rng.integers(0, len(normal_piece_ids), size=len(rows))]
    kind = np.where(first < 0.8, 0, np.where(second < 0.5, 1, 2))
    replaced = np.choose(kind, [np.full_like(labels, mask_id), labels, random_ids])
    output_ids = input_ids.copy()
    output_ids[rows, cols] = replaced
    per_row = np.bincount(rows, minlength=num_rows)
    slot = np.arange(len(rows)) - np.repeat(np.cumsum(per_row) - per_row, per_row)
    predictions = options.max_predictions_per_seq
    positions = np.zeros((num_rows, predictions), dtype=np.int32)
    label_ids = np.zeros((num_rows, predictions), dtype=np.int32)
    weights = np.zeros((num_rows, predictions), dtype=np.float32)
    positions[rows, slot] = cols
    label_ids[rows, slot] = labels
    weights[rows, slot] = 1.0
    return MaskedInstances(
        output_ids,
        positions,
        label_ids,
        weights,
        ngram_counts,
        np.bincount(kind, minlength=3).astype(np.int64),
    )
