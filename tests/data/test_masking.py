"""Whole-word n-gram masking invariants, on random instances (hypothesis) and in bulk."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from albert_tf.data.instances import InstanceOptions, assemble_instances, build_segment_pairs
from albert_tf.data.masking import MaskingOptions, mask_instances
from albert_tf.data.tokenized_documents import TokenizedDocuments

CLS, SEP, MASK, VOCAB = 2, 3, 4, 200
NORMAL = np.arange(5, VOCAB, dtype=np.int32)


def _instances(seed: int, num_documents: int, max_seq_length: int):
    rng = np.random.default_rng(seed)
    word_start = rng.random(VOCAB) < 0.6
    documents = [rng.integers(1, 25, size=rng.integers(1, 10)) for _ in range(num_documents)]
    lengths = np.minimum(np.concatenate(documents), max_seq_length - 3)
    counts = [len(d) for d in documents]
    ids = rng.integers(5, VOCAB, size=int(lengths.sum())).astype(np.int32)
    batch = TokenizedDocuments(
        ids,
        np.cumsum(lengths) - lengths,
        lengths,
        np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        token_starts=word_start[ids],
    )
    options = InstanceOptions(max_seq_length=max_seq_length)
    pairs = build_segment_pairs(batch, options, random.Random(seed), np.random.default_rng(seed))
    features = assemble_instances(ids, pairs, max_seq_length, CLS, SEP, batch.token_starts)
    del features["source"]
    return features


def _mask(features, options, seed):
    return mask_instances(features, options, CLS, SEP, MASK, NORMAL, np.random.default_rng(seed))


def _words(boundary_row, ids_row, length):
    """(start, end) of each whole word, [CLS]/[SEP] excluded."""
    words, start = [], None
    for position in range(length):
        special = ids_row[position] in (CLS, SEP)
        if special or boundary_row[position]:
            if start is not None:
                words.append((start, position))
            start = None if special else position
    if start is not None:
        words.append((start, length))
    return words


def _check(features, masked, options):
    ids = features["input_ids"]
    for row in range(len(ids)):
        length = int(features["input_mask"][row].sum())
        weights = masked.weights[row] > 0
        positions = masked.positions[row][weights]
        assert (masked.positions[row][~weights] == 0).all()
        assert (masked.label_ids[row][~weights] == 0).all()
        budget = min(
            options.max_predictions_per_seq, max(1, round(length * options.masked_lm_prob))
        )
        assert len(positions) <= budget
        assert (np.diff(positions) > 0).all()  # sorted, unique
        assert (positions < length).all()
        assert not np.isin(ids[row][positions], [CLS, SEP]).any()  # specials never masked
        np.testing.assert_array_equal(masked.label_ids[row][weights], ids[row][positions])
        changed = np.flatnonzero(masked.input_ids[row] != ids[row])
        assert set(changed.tolist()) <= set(positions.tolist())
        replaced = masked.input_ids[row][positions]
        assert np.isin(replaced[replaced != ids[row][positions]], [MASK, *NORMAL]).all()
        # Whole words: a word is masked entirely or not at all; runs stay inside a segment.
        chosen = set(positions.tolist())
        if not options.do_whole_word_mask:
            continue
        for start, end in _words(features["token_boundary"][row], ids[row], length):
            inside = [p in chosen for p in range(start, end)]
            assert all(inside) or not any(inside)
    assert masked.ngram_counts[0] == 0 and len(masked.ngram_counts) == options.ngram + 1


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    max_seq_length=st.integers(8, 64),
    predictions=st.integers(1, 12),
    ngram=st.integers(1, 4),
    whole_word=st.booleans(),
)
def test_masking_invariants(seed, max_seq_length, predictions, ngram, whole_word):
    features = _instances(seed, 6, max_seq_length)
    options = MaskingOptions(
        max_predictions_per_seq=predictions, ngram=ngram, do_whole_word_mask=whole_word
    )
    masked = _mask(features, options, seed)
    _check(features, masked, options)
    again = _mask(features, options, seed)
    np.testing.assert_array_equal(masked.input_ids, again.input_ids)


def test_bulk_shares_budget_and_ngrams():
    features = _instances(7, 400, 64)
    options = MaskingOptions(max_predictions_per_seq=10)
    masked = _mask(features, options, 7)
    _check(features, masked, options)
    total = masked.replacement_counts.sum()
    mask_share, kept_share, random_share = masked.replacement_counts / total
    assert abs(mask_share - 0.8) < 0.03 and abs(kept_share - 0.1) < 0.03
    assert abs(random_share - 0.1) < 0.03
    real = features["input_mask"].sum()
    assert 0.12 < masked.weights.sum() / real < 0.16
    shares = masked.ngram_counts[1:] / masked.ngram_counts[1:].sum()
    assert shares[0] > shares[1] > shares[2] > 0.05  # p(n) ~ 1/n, shrunk to fit budgets


def test_ngram_one_masks_single_words():
    features = _instances(3, 50, 48)
    masked = _mask(features, MaskingOptions(ngram=1), 3)
    assert masked.ngram_counts.tolist()[2:] == []  # only n = 1 exists
    assert masked.ngram_counts[1] > 0


def test_probabilities():
    np.testing.assert_allclose(MaskingOptions().ngram_probabilities(), [6 / 11, 3 / 11, 2 / 11])
    np.testing.assert_allclose(
        MaskingOptions(favor_shorter_ngram=False).ngram_probabilities(), [1 / 3] * 3
    )


def test_continuation_piece_after_a_special_starts_a_word():
    """Records whose segment begins with a continuation piece (token_boundary 0) stay in budget."""
    rng = np.random.default_rng(0)
    input_ids = np.array([[2, 10, 11, 12, 3, 13, 14, 15, 3] + [0] * 7] * 64)
    features = {
        "input_ids": input_ids,
        "input_mask": (input_ids > 0).astype(np.int32),
        "segment_ids": np.array([[0] * 5 + [1] * 4 + [0] * 7] * 64),
        # No word starts at all after the specials: every piece continues a word.
        "token_boundary": np.array([[1, 0, 0, 0, 1, 0, 0, 0, 1] + [0] * 7] * 64),
    }
    options = MaskingOptions(max_predictions_per_seq=3, masked_lm_prob=0.5)
    masked = mask_instances(features, options, 2, 3, 4, np.arange(5, 100), rng)
    weights = masked.weights
    assert weights.shape == (64, 3)
    assert (weights.sum(axis=1) <= 3).all() and (weights.sum(axis=1) >= 1).all()
