"""A trivial SQuAD baseline: the first n words of the sentence that best overlaps the question.

Sentences are split after `.`, `!` or `?` followed by whitespace; overlap counts the distinct
normalized question words (official answer normalization, minus a few stop words) found in the
sentence; ties go to the earlier sentence; `n` is chosen on a training file (best F1). It never
answers "no answer", so on SQuAD v2.0 its NoAns figures are 0 (the all-null answer scores the
NoAns share instead; both are reported by docs/squad.md).

Example:
    >>> from albert_tf.finetune.span_qa.examples import SquadExample
    >>> example = SquadExample("q", "When did the Normans conquer England?",
    ...                        "Rollo was a Viking. The Normans conquered England in 1066.")
    >>> baseline_answer(example, num_words=3)
    'The Normans conquered'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from albert_tf.finetune.span_qa.examples import SquadData, SquadExample
from albert_tf.finetune.span_qa.scoring import evaluate, normalize_answer

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_STOP_WORDS = frozenset(
    "what which who whom whose when where why how is are was were did do does of in on to for "
    "by with and or from as at that this be it its".split()
)


def _words(text: str) -> set[str]:
    return set(normalize_answer(text).split()) - _STOP_WORDS


def best_sentence(example: SquadExample) -> str:
    """The context sentence sharing most question words (the first on ties)."""
    sentences = [s for s in _SENTENCE_END.split(example.context) if s.strip()] or [""]
    question = _words(example.question)
    return max(sentences, key=lambda sentence: len(question & _words(sentence)))


def baseline_answer(example: SquadExample, num_words: int) -> str:
    """The first `num_words` words of the context sentence sharing most question words."""
    return " ".join(best_sentence(example).split()[:num_words])


def baseline_predictions(examples: Sequence[SquadExample], num_words: int) -> dict[str, str]:
    return {example.qas_id: baseline_answer(example, num_words) for example in examples}


def choose_num_words(examples: Sequence[SquadExample], candidates=range(1, 41)) -> int:
    """The `num_words` with the best F1 on `examples` (v1-style: answerable questions only)."""
    answerable = [example for example in examples if not example.is_impossible]
    # The sentence does not depend on `num_words`: found once, cut to each candidate.
    words = {example.qas_id: best_sentence(example).split() for example in answerable}

    def f1(num_words: int) -> float:
        answers = {qas_id: " ".join(found[:num_words]) for qas_id, found in words.items()}
        return evaluate(answerable, answers, version=1)["f1"]

    return max(candidates, key=f1)


def baseline_scores(data: SquadData, num_words: int) -> dict[str, float]:
    """The official figures of the baseline's answers to `data`; for a v2.0 file also those of
    answering no question (`no_answer/<name>`), the score of the NoAns share alone."""
    version = 2 if data.is_v2 else 1
    scores = evaluate(data.examples, baseline_predictions(data.examples, num_words), None, version)
    if data.is_v2:
        empty = evaluate(data.examples, {example.qas_id: "" for example in data.examples})
        scores.update({f"no_answer/{name}": value for name, value in empty.items()})
    return scores
