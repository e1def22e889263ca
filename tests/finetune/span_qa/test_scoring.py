"""The official SQuAD scoring, against hand-computed cases."""

from __future__ import annotations

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.span_qa.examples import Answer, SquadExample
from albert_tf.finetune.span_qa.scoring import (
    best_threshold,
    evaluate,
    exact_match,
    f1_score,
    normalize_answer,
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The Cat", "cat"),
        ("  an  apple,  a pear!  ", "apple pear"),
        ("theater", "theater"),  # Articles only as whole words.
        ("A-Team's 'best'", "ateams best"),  # Punctuation is removed, not spaced.
        ("Über\tcafé", "über café"),  # Non-ASCII kept (official: string.punctuation only).
        ("the", ""),
        ("1,000.5", "10005"),
    ],
)
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


def test_exact_match_and_f1_by_hand():
    assert exact_match("The Eiffel Tower", "eiffel tower.") == 1
    assert exact_match("Eiffel Tower", "the Eiffel") == 0
    # gold [eiffel, tower, paris], pred [tower, in, paris]: 2 common, P = R = 2/3.
    assert f1_score("the Eiffel Tower, Paris", "tower in Paris") == pytest.approx(2 / 3)
    # Repeated tokens count once per match: gold [a1 x x], pred [x]: P 1, R 1/3 -> 0.5.
    assert f1_score("y x x", "x") == pytest.approx(0.5)
    assert f1_score("cat", "dog") == 0.0
    # Empty vs empty: v2 gives 1, v1.1 gives 0 (as the official scripts).
    assert f1_score("", "", version=2) == 1.0
    assert f1_score("", "", version=1) == 0.0
    assert f1_score("the", "", version=2) == 1.0  # "the" normalizes to nothing.


def _example(qas_id, answers=(), impossible=False):
    return SquadExample(qas_id, "q?", "ctx", tuple(Answer(t, 0) for t in answers), impossible)


def test_v2_evaluate_by_hand():
    examples = [
        _example("a", ["Paris", "in Paris"]),
        _example("b", ["red car"]),
        _example("c", impossible=True),
        _example("d", impossible=True),
    ]
    predictions = {"a": "paris", "b": "car", "c": "", "d": "something"}
    results = evaluate(examples, predictions)
    # EM: a=1, b=0, c=1, d=0 -> 50; F1: a=1, b=2/3, c=1, d=0 -> 66.67.
    assert results["exact"] == pytest.approx(50.0)
    assert results["f1"] == pytest.approx(100 * (1 + 2 / 3 + 1) / 4)
    assert results["HasAns_exact"] == pytest.approx(50.0)
    assert results["HasAns_f1"] == pytest.approx(100 * (1 + 2 / 3) / 2)
    assert (results["NoAns_exact"], results["NoAns_total"]) == (50.0, 2)


def test_best_threshold_by_hand():
    # Best non-null answers and their null odds; a and b answerable (F1 1 and 0.5).
    predictions = {"a": "x", "b": "y", "c": "z", "d": "w"}
    scores = {"a": 1.0, "b": 0.5, "c": 0.0, "d": 0.0}
    has_answer = {"a": True, "b": True, "c": False, "d": False}
    null_odds = {"a": -3.0, "b": 2.0, "c": 1.0, "d": 5.0}
    # Answer when odds <= t. t=-3: a right, c,d null -> (1+0+1+1)/4 = 75%.
    # t=1: a, c answered -> 1 + 0 + 0 + 1 = 2; t=2: + b 0.5 -> 2.5 = 62.5%.
    assert best_threshold(predictions, scores, null_odds, has_answer) == (75.0, -3.0)
    # All-null best: the threshold is below every odds (the official script says 0.0).
    null_odds = {"a": 4.0, "b": 4.0, "c": -1.0, "d": -2.0}
    best, threshold = best_threshold(predictions, scores, null_odds, has_answer)
    assert best == 50.0 and threshold < -2.0


def test_v1_scoring_and_missing_predictions():
    examples = [_example("a", ["Norman conquest"]), _example("b", ["1066"])]
    results = evaluate(examples, {"a": "the Norman conquest", "b": "in 1066"}, version=1)
    assert results == {"exact": 50.0, "f1": pytest.approx(100 * (1 + 2 / 3) / 2), "total": 2}
    with pytest.raises(UserError, match="question b"):
        evaluate(examples, {"a": ""})
    with pytest.raises(UserError, match="no questions"):
        evaluate([], {})
