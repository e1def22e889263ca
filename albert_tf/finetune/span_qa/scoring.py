"""Official SQuAD scoring (evaluate-v1.1.py and evaluate-v2.0.py), rewritten here.

Answers are normalized (lowercase, drop ASCII punctuation, drop the articles a/an/the, collapse
whitespace); exact match and token-level F1 take the max over the gold answers; figures are
percentages. v2.0: an unanswerable question scores 1 only for an empty prediction; the
HasAns/NoAns breakdown and the best no-answer thresholds over `null_odds` are reported as the
official script does (`best_f1_thresh` is the `null_score_diff_threshold` to use).

Two details differ between the official scripts and are kept: v1.1 scores an empty prediction
against an empty gold with F1 0 and keeps gold answers that normalize to nothing; v2.0 gives
F1 1 there and drops such gold answers. A missing prediction is an error here (the official
scripts score it 0 or skip it silently).

Example:
    >>> normalize_answer("The  Norman-Conquest!")
    'normanconquest'
    >>> round(f1_score("the cat sat", "a cat sat down", version=2), 4)
    0.8
"""

from __future__ import annotations

import collections
import re
import string
from collections.abc import Mapping, Sequence

from albert_tf.errors import UserError
from albert_tf.finetune.span_qa.examples import SquadExample

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def normalize_answer(text: str) -> str:
    """Lowercase, remove punctuation, articles and extra whitespace (official order)."""
    text = "".join(char for char in text.lower() if char not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(gold: str, prediction: str) -> int:
    return int(normalize_answer(gold) == normalize_answer(prediction))


def f1_score(gold: str, prediction: str, version: int = 2) -> float:
    """Token F1 of the normalized answers (see the module docstring for v1 vs v2)."""
    gold_tokens = normalize_answer(gold).split() if gold else []
    prediction_tokens = normalize_answer(prediction).split() if prediction else []
    common = collections.Counter(gold_tokens) & collections.Counter(prediction_tokens)
    num_same = sum(common.values())
    if version == 2 and (not gold_tokens or not prediction_tokens):
        return float(gold_tokens == prediction_tokens)
    if num_same == 0:
        return 0.0
    precision = num_same / len(prediction_tokens)
    recall = num_same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def gold_texts(example: SquadExample, version: int = 2) -> list[str]:
    """The gold answers scored against (v2: [""] for an unanswerable question)."""
    texts = [answer.text for answer in example.answers]
    if version == 2:
        texts = [text for text in texts if normalize_answer(text)] or [""]
    return texts


def raw_scores(
    examples: Sequence[SquadExample], predictions: Mapping[str, str], version: int = 2
) -> tuple[dict[str, float], dict[str, float]]:
    """Per question id: (exact match 0/1, F1 0..1), max over the gold answers."""
    exact, f1 = {}, {}
    for example in examples:
        if example.qas_id not in predictions:
            raise UserError(
                "no prediction for a question",
                where=f"question {example.qas_id}",
                fix="predict every question of the file",
            )
        prediction = predictions[example.qas_id]
        golds = gold_texts(example, version)
        exact[example.qas_id] = max(exact_match(gold, prediction) for gold in golds)
        f1[example.qas_id] = max(f1_score(gold, prediction, version) for gold in golds)
    return exact, f1


def evaluate(
    examples: Sequence[SquadExample],
    predictions: Mapping[str, str],
    null_odds: Mapping[str, float] | None = None,
    version: int = 2,
) -> dict[str, float]:
    """Official figures: `exact`, `f1`, `total`; v2 adds HasAns/NoAns and best thresholds.

    `predictions` are the final answers ("" = no answer). With `null_odds` (v2), the best
    thresholds are found over them as evaluate-v2.0.py does, scoring `predictions` as the
    answers given when the null is not chosen.
    """
    if not examples:
        raise UserError("no questions to evaluate", fix="pass a non-empty SQuAD file")
    exact, f1 = raw_scores(examples, predictions, version)
    results = _summary(exact, f1, [example.qas_id for example in examples])
    if version == 1:
        return results
    has_answer = {example.qas_id: bool(gold_texts(example)[0]) for example in examples}
    for name, wanted in (("HasAns", True), ("NoAns", False)):
        ids = [qas_id for qas_id, value in has_answer.items() if value == wanted]
        if ids:
            results.update({f"{name}_{k}": v for k, v in _summary(exact, f1, ids).items()})
    if null_odds is not None:
        for name, scores in (("exact", exact), ("f1", f1)):
            best, threshold = best_threshold(predictions, scores, null_odds, has_answer)
            results[f"best_{name}"] = best
            results[f"best_{name}_thresh"] = threshold
    return results


def best_threshold(
    predictions: Mapping[str, str],
    scores: Mapping[str, float],
    null_odds: Mapping[str, float],
    has_answer: Mapping[str, bool],
) -> tuple[float, float]:
    """(best score %, threshold): answer "" when `null_odds > threshold` (evaluate-v2.0.py)."""
    current = best = sum(1 for value in has_answer.values() if not value)
    # All questions unanswered: the official script says 0.0 (its null "probabilities" are
    # >= 0); null odds may be negative, so we return a threshold below every one of them.
    threshold = min(null_odds.values(), default=0.0) - 1.0
    for qas_id in sorted(null_odds, key=lambda key: null_odds[key]):
        if qas_id not in scores:
            continue
        if has_answer[qas_id]:
            current += scores[qas_id]
        elif predictions[qas_id]:
            current -= 1
        if current > best:
            best, threshold = current, null_odds[qas_id]
    return 100.0 * best / len(scores), threshold


def _summary(exact: Mapping[str, float], f1: Mapping[str, float], ids: list[str]) -> dict:
    return {
        "exact": 100.0 * sum(exact[i] for i in ids) / len(ids),
        "f1": 100.0 * sum(f1[i] for i in ids) / len(ids),
        "total": len(ids),
    }
