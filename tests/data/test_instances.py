"""Instance building: segment order vs label, lengths, layout, truncation, determinism.

Token ids here are the tokens' positions in the corpus (+ an offset), so a segment's ids
tell where it came from: label 0 must mean A precedes B, label 1 (SOP) that B precedes A.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from albert_tf.data.instances import (
    InstanceOptions,
    assemble_instances,
    build_segment_pairs,
)
from albert_tf.data.tokenized_documents import TokenizedDocuments, _split_long_sentences

OFFSET, CLS, SEP = 10, 2, 3


def _corpus(sentence_lengths: list[list[int]]) -> TokenizedDocuments:
    lengths = np.array([n for document in sentence_lengths for n in document], dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    counts = [len(document) for document in sentence_lengths]
    document_starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    ids = (np.arange(int(lengths.sum())) + OFFSET).astype(np.int32)
    return TokenizedDocuments(ids, starts, lengths, document_starts)


def _document_of_token(batch: TokenizedDocuments) -> np.ndarray:
    per_document = [
        int(batch.sentence_lengths[batch.document_starts[d] : batch.document_starts[d + 1]].sum())
        for d in range(batch.num_documents)
    ]
    return np.repeat(np.arange(batch.num_documents), per_document)


def _build(batch, options, seed=0, word_start=None):
    """Pairs of `batch`, whose pieces start words where `word_start` (by id) says (default:
    everywhere); returns them and the pieces' word starts."""
    if word_start is not None:
        batch = dataclasses.replace(batch, token_starts=word_start[batch.token_ids])
    pairs = build_segment_pairs(batch, options, random.Random(seed), np.random.default_rng(seed))
    return pairs, batch.token_starts


def _check_pairs(batch, pairs, options):
    document = _document_of_token(batch)
    assert (pairs.a_length >= 1).all() and (pairs.b_length >= 1).all()
    assert (pairs.a_length + pairs.b_length <= options.max_num_tokens).all()
    for a0, an, b0, bn, label in zip(
        pairs.a_start, pairs.a_length, pairs.b_start, pairs.b_length, pairs.labels, strict=True
    ):
        a_docs = set(document[a0 : a0 + an].tolist())
        b_docs = set(document[b0 : b0 + bn].tolist())
        if options.random_next_sentence:
            if label == 0:
                assert a_docs == b_docs and len(a_docs) == 1 and a0 + an <= b0
        else:
            assert a_docs == b_docs and len(a_docs) == 1  # pure SOP: one document
            if label == 0:
                assert a0 + an <= b0
            else:
                assert b0 + bn <= a0


@settings(max_examples=40, deadline=None)
@given(
    documents=st.lists(
        st.lists(st.integers(1, 40), min_size=1, max_size=12), min_size=1, max_size=8
    ),
    max_seq_length=st.integers(5, 64),
    nsp=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_pairs_invariants(documents, max_seq_length, nsp, seed):
    documents = [[min(n, max_seq_length - 3) for n in d] for d in documents]
    batch = _corpus(documents)
    options = InstanceOptions(max_seq_length=max_seq_length, random_next_sentence=nsp)
    pairs, word_start = _build(batch, options, seed)
    _check_pairs(batch, pairs, options)
    again, _ = _build(batch, options, seed)
    np.testing.assert_array_equal(pairs.labels, again.labels)
    np.testing.assert_array_equal(pairs.a_start, again.a_start)
    features = assemble_instances(batch.token_ids, pairs, max_seq_length, CLS, SEP, word_start)
    _check_layout(features, pairs, max_seq_length)


def _check_layout(features, pairs, max_seq_length):
    for row in range(len(pairs)):
        an, bn = int(pairs.a_length[row]), int(pairs.b_length[row])
        ids = features["input_ids"][row]
        a0, b0 = int(pairs.a_start[row]), int(pairs.b_start[row])
        expected = [CLS, *range(a0 + OFFSET, a0 + an + OFFSET), SEP]
        expected += [*range(b0 + OFFSET, b0 + bn + OFFSET), SEP]
        expected += [0] * (max_seq_length - len(expected))
        assert ids.tolist() == expected
        used = an + bn + 3
        assert features["input_mask"][row].tolist() == [1] * used + [0] * (max_seq_length - used)
        assert features["segment_ids"][row].tolist() == (
            [0] * (an + 2) + [1] * (bn + 1) + [0] * (max_seq_length - used)
        )
        boundary = features["token_boundary"][row]
        assert boundary[0] == boundary[an + 1] == boundary[used - 1] == boundary[1] == 1
        assert (boundary[used:] == 0).all()


def test_sop_labels_are_balanced_and_pure():
    rng = np.random.default_rng(1)
    batch = _corpus([rng.integers(3, 30, size=20).tolist() for _ in range(40)])
    options = InstanceOptions(max_seq_length=64)
    pairs, _ = _build(batch, options, 3)
    _check_pairs(batch, pairs, options)
    assert 0.4 < pairs.labels.mean() < 0.6


def test_one_sentence_documents_are_split_or_use_fallback():
    batch = _corpus([[12], [1], [9], [15]])
    pure, _ = _build(batch, InstanceOptions(max_seq_length=32))
    assert len(pure) == 3 and pure.skipped_chunks == 1  # the 1-piece document is skipped
    _check_pairs(batch, pure, InstanceOptions(max_seq_length=32))
    fallback, _ = _build(
        batch, InstanceOptions(max_seq_length=32, sop_random_document_fallback=True)
    )
    assert len(fallback) == 4 and (fallback.labels == 1).all()  # original: random B, label 1


def test_single_sentence_split_at_word_start():
    batch = _corpus([[8]])
    word_start = np.zeros(len(batch.token_ids) + OFFSET, dtype=bool)
    word_start[OFFSET + 5] = True  # the only word start inside the sentence
    pairs, _ = _build(batch, InstanceOptions(max_seq_length=32), word_start=word_start)
    assert sorted([int(pairs.a_length[0]), int(pairs.b_length[0])]) == [3, 5]


def test_long_sentences_are_split():
    lengths, source, count = _split_long_sentences(np.array([3, 10, 4]), 4)
    assert lengths.tolist() == [3, 4, 4, 2, 4] and source.tolist() == [0, 1, 1, 1, 2]
    assert count == 1


def test_bad_options():
    with pytest.raises(ValueError, match="max_seq_length"):
        InstanceOptions(max_seq_length=4)
