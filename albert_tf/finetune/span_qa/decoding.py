"""Start/end logits of windows -> answers: n-best legal spans, combined over windows, v2 nulls.

A legal span starts and ends on context pieces of the same window (never in the question,
[CLS] or [SEP]), with `end >= start` and at most `max_answer_length` pieces. Every legal span
is scored `start_logit + end_logit` (an exhaustive search over the band of allowed lengths, so
the best legal span is always found; the original only tries the top-20 starts x ends). Spans
of all windows of a question are merged by score (ties: earlier window, earlier start, shorter
span), their texts are the exact original substrings, and the n-best keeps the first
`n_best_size` distinct texts, with softmax probabilities.

v2.0: the null score of a window is `start_logit[CLS] + end_logit[CLS]`, the question's is the
minimum over its windows; `null_odds = null_score - best_span_score`, and the answer is ""
when `null_odds > null_score_diff_threshold`. The serving graph (serving.py) uses the same
rules, so both give the same answers.

Example:
    >>> import numpy as np
    >>> start = np.array([0., 5., 1., 0.]); end = np.array([0., 0., 4., 9.])
    >>> context = np.array([False, True, True, False])  # position 3 is [SEP].
    >>> [(i, j) for _, i, j in top_spans(start, end, context, max_answer_length=2, n=2)]
    [(1, 2), (1, 1)]
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from albert_tf.finetune.span_qa.examples import SquadExample
from albert_tf.finetune.span_qa.features import SquadWindows

NO_SPAN_ODDS = 1e9  # null_odds of a question without any legal span (always answered "").


@dataclasses.dataclass(frozen=True)
class AnswerRules:
    """How spans become answers, the same in `decode` and in the serving graph (serving.py).

    Attributes:
        max_answer_length: longest answer, in pieces.
        with_null: v2.0: answer "" when the null odds exceed `null_score_diff_threshold`.
        null_score_diff_threshold: see `with_null`.
    """

    max_answer_length: int = 30
    with_null: bool = False
    null_score_diff_threshold: float = 0.0


@dataclasses.dataclass
class Predictions:
    """Per question id: final answer, best non-null answer, its char span and score, n-best."""

    answers: dict[str, str]
    best_spans: dict[str, str]
    char_spans: dict[str, tuple[int, int]]
    scores: dict[str, float]
    null_odds: dict[str, float]
    nbest: dict[str, list[dict]]


def span_scores(
    start_logits: np.ndarray, end_logits: np.ndarray, context: np.ndarray, max_answer_length: int
) -> tuple[np.ndarray, np.ndarray]:
    """The window's context positions `starts` and float [len(starts), max_answer_length]: the
    score of span (starts[r], starts[r] + k); -inf where illegal. Only context positions are
    rows: the question and the padding start no span."""
    starts = np.flatnonzero(context)
    length = len(start_logits)
    ends = starts[:, None] + np.arange(max_answer_length)[None, :]
    inside = ends < length
    ends = np.minimum(ends, length - 1)
    scores = start_logits[starts][:, None] + end_logits[ends]
    return starts, np.where(context[ends] & inside, scores, -np.inf)


def top_spans(
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    context: np.ndarray,
    max_answer_length: int,
    n: int,
) -> list[tuple[float, int, int]]:
    """The `n` best legal spans `(score, start, end)` of one window, best first."""
    starts, scores = span_scores(start_logits, end_logits, context, max_answer_length)
    best_per_start = scores.max(axis=1)
    scores = scores.ravel()
    legal = np.flatnonzero(np.isfinite(scores))
    if not legal.size:
        return []
    if best_per_start.size > n:  # Cheap preselection, then an exact ordering of the survivors.
        # The n best starts' best spans are n legal spans, so the n-th best span scores at
        # least the n-th best of them: no span below that can be among the n best.
        cut = np.partition(best_per_start, best_per_start.size - n)[best_per_start.size - n]
        legal = legal[scores[legal] >= cut]
    # Ties keep the lower flat index (earlier start, then shorter span).
    flat = legal[np.lexsort((legal, -scores[legal]))[:n]]
    rows, lengths = np.divmod(flat, max_answer_length)
    return [
        (float(scores[f]), int(starts[r]), int(starts[r] + k))
        for f, r, k in zip(flat, rows, lengths, strict=True)
    ]


def decode(
    examples: Sequence[SquadExample],
    windows: SquadWindows,
    logits: np.ndarray,
    rules: AnswerRules = AnswerRules(),
    n_best_size: int = 20,
) -> Predictions:
    """Answers of every example from window logits `[W, S, 2]` (start, end)."""
    logits = np.asarray(logits, np.float32)
    context = windows.context_mask
    candidates: list[list] = [[] for _ in examples]
    nulls = [(math.inf, 0.0, 0.0)] * len(examples)
    for w in range(len(windows)):
        e = int(windows.example_index[w])
        start, end = logits[w, :, 0], logits[w, :, 1]
        if float(start[0] + end[0]) < nulls[e][0]:
            nulls[e] = (float(start[0] + end[0]), float(start[0]), float(end[0]))
        for rank, (score, i, j) in enumerate(
            top_spans(start, end, context[w], rules.max_answer_length, n_best_size)
        ):
            char_span = (int(windows.char_starts[w, i]), int(windows.char_ends[w, j]))
            candidates[e].append((score, w, rank, char_span, float(start[i]), float(end[j])))
    predictions = Predictions({}, {}, {}, {}, {}, {})
    for e, example in enumerate(examples):
        _decide(example, candidates[e], nulls[e], n_best_size, rules, predictions)
    return predictions


def _decide(example, candidates, null, n_best_size, rules: AnswerRules, out) -> None:
    """Fills `out` for one example from its windows' candidates and its null (score, s, e)."""
    null_score, null_start, null_end = null
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    entries, seen = [], set()
    for score, _, _, (begin, stop), start_logit, end_logit in candidates:
        text = example.context[begin:stop]
        if text in seen:
            continue
        seen.add(text)
        entries.append(
            {
                "text": text,
                "score": score,
                "start_logit": start_logit,
                "end_logit": end_logit,
                "span": (begin, stop),
            }
        )
        if len(entries) == n_best_size:
            break
    qas_id = example.qas_id
    best = entries[0] if entries else None
    out.best_spans[qas_id] = best["text"] if best else ""
    out.null_odds[qas_id] = float(null_score - best["score"]) if best else NO_SPAN_ODDS
    if best is None or (
        rules.with_null and out.null_odds[qas_id] > rules.null_score_diff_threshold
    ):
        out.answers[qas_id], out.char_spans[qas_id] = "", (0, 0)
        out.scores[qas_id] = float(null_score)
    else:
        out.answers[qas_id], out.char_spans[qas_id] = best["text"], best["span"]
        out.scores[qas_id] = best["score"]
    if rules.with_null and "" not in seen:
        entries.append(
            {"text": "", "score": null_score, "start_logit": null_start, "end_logit": null_end}
        )
    out.nbest[qas_id] = _with_probabilities(entries)


def _with_probabilities(entries: list[dict]) -> list[dict]:
    if not entries:
        return [{"text": "", "probability": 1.0, "start_logit": 0.0, "end_logit": 0.0}]
    scores = np.array([entry["score"] for entry in entries], np.float64)
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return [
        {
            "text": entry["text"],
            "probability": float(p),
            "start_logit": entry["start_logit"],
            "end_logit": entry["end_logit"],
        }
        for entry, p in sorted(zip(entries, weights, strict=True), key=lambda item: -item[1])
    ]
