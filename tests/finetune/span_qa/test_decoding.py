"""Decoding: the best legal span (end >= start, length limit, context only), windows, nulls."""

from __future__ import annotations

import numpy as np
import pytest

from albert_tf.finetune.span_qa.decoding import AnswerRules, decode, top_spans
from albert_tf.finetune.span_qa.examples import SquadExample
from albert_tf.finetune.span_qa.features import SquadWindows

NEG = -10.0


def test_best_span_is_legal():
    context = np.array([False, False, False, True, True, True, True, False])  # [CLS] q q ... [SEP]
    start = np.full(8, NEG)
    end = np.full(8, NEG)
    start[1], end[2] = 20.0, 20.0  # The best pair lies in the question: illegal.
    start[6], end[4] = 9.0, 9.0  # (6, 4) scores 18 but ends before it starts: illegal.
    start[3], end[3] = 5.0, 1.0
    start[4], end[6] = 4.0, 3.0
    spans = top_spans(start, end, context, max_answer_length=30, n=3)
    # By hand: (3, 4) 5 + 9, (4, 4) 4 + 9, (6, 6) 9 + 3.
    assert [(i, j) for _, i, j in spans] == [(3, 4), (4, 4), (6, 6)]
    assert [score for score, _, _ in spans] == [14.0, 13.0, 12.0]
    # With answers of one piece, (3, 4) is too long.
    assert top_spans(start, end, context, max_answer_length=1, n=1)[0][1:] == (4, 4)


@pytest.mark.parametrize("seed", range(12))
def test_top_spans_are_the_exhaustive_search_s(seed):
    rng = np.random.default_rng(seed)
    length = 24
    context = rng.random(length) < 0.7
    # Few distinct values: many ties, which must break by earlier start, then shorter span.
    start, end = (rng.integers(0, 4, length).astype(np.float32) for _ in range(2))
    legal = [
        (-(start[i] + end[j]), i, j - i)
        for i in range(length)
        for j in range(i, min(i + 5, length))
        if context[i] and context[j]
    ]
    expected = [(-score, i, i + k) for score, i, k in sorted(legal)[:7]]
    assert top_spans(start, end, context, max_answer_length=5, n=7) == expected


def test_no_context_gives_no_spans():
    assert top_spans(np.zeros(4), np.zeros(4), np.zeros(4, bool), 30, 5) == []


def _windows(example_index, char_spans, length=6):
    """Windows with context at positions 2..4; char_spans[w] = [(start, end)] * 3."""
    count = len(example_index)
    starts = np.full([count, length], -1, np.int32)
    ends = np.full([count, length], -1, np.int32)
    for w, spans in enumerate(char_spans):
        for k, (s, e) in enumerate(spans):
            starts[w, 2 + k], ends[w, 2 + k] = s, e
    zeros = np.zeros([count, length], np.int32)
    return SquadWindows(
        zeros,
        zeros,
        zeros,
        np.zeros([count, 2], np.int32),
        np.array(example_index, np.int32),
        starts,
        ends,
    )


CONTEXT = "alpha beta gamma delta"
SPANS = [(0, 5), (6, 10), (11, 16)]  # alpha, beta, gamma
SPANS_2 = [(11, 16), (17, 22), (17, 22)]  # second window: gamma, delta, (delta again)


def test_windows_are_combined_and_texts_are_original_substrings():
    examples = [SquadExample("q", "?", CONTEXT)]
    windows = _windows([0, 0], [SPANS, SPANS_2])
    logits = np.full([2, 6, 2], NEG, np.float32)
    logits[0, 2, 0], logits[0, 3, 1] = 3.0, 3.0  # "alpha beta": 6
    logits[1, 2, 0], logits[1, 3, 1] = 4.0, 4.0  # "gamma delta": 8
    logits[:, 0, :] = 0.0  # null score 0
    predictions = decode(examples, windows, logits, n_best_size=3)
    assert predictions.answers["q"] == "gamma delta"
    assert predictions.char_spans["q"] == (11, 22)
    assert predictions.null_odds["q"] == pytest.approx(-8.0)
    nbest = predictions.nbest["q"]
    assert len(nbest) == 3 and len({entry["text"] for entry in nbest}) == 3
    assert sum(entry["probability"] for entry in nbest) == pytest.approx(1.0)
    assert nbest[0]["text"] == "gamma delta"


def test_v2_null_and_threshold():
    examples = [SquadExample("q", "?", CONTEXT)]
    windows = _windows([0, 0], [SPANS, SPANS_2])
    logits = np.full([2, 6, 2], NEG, np.float32)
    logits[0, 2, 0], logits[0, 2, 1] = 1.0, 1.0  # "alpha": 2
    logits[0, 0, :] = 3.0  # null 6 in window 0
    logits[1, 0, :] = 2.5  # null 5 in window 1: the question's null is the minimum, 5.
    predictions = decode(examples, windows, logits, AnswerRules(with_null=True))
    assert predictions.null_odds["q"] == pytest.approx(3.0)
    assert predictions.answers["q"] == "" and predictions.best_spans["q"] == "alpha"
    assert "" in [entry["text"] for entry in predictions.nbest["q"]]
    kept = decode(
        examples, windows, logits, AnswerRules(with_null=True, null_score_diff_threshold=3.5)
    )
    assert kept.answers["q"] == "alpha"
    v1 = decode(examples, windows, logits, AnswerRules(with_null=False))
    assert v1.answers["q"] == "alpha" and "" not in [e["text"] for e in v1.nbest["q"]]
