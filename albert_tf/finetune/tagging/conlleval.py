"""Entity-level precision, recall and F1 exactly as conlleval.pl (CoNLL-2000..2003), and accuracy.

A chunk (entity) is a maximal run of words that conlleval's `startOfChunk`/`endOfChunk` rules
group together; a predicted chunk is correct when it starts and ends at the same words as a gold
chunk and has the same type. The rules read IOB1, IOB2 and IOE/IOBES tags alike (`I-PER I-PER`
is one chunk, `I-PER B-PER` two, `B-PER` after `O` one), so scores never depend on a scheme
flag; `S-` and `E-` (IOBES) follow seqeval's additions to the rules (see `end_of_chunk`).
Sentences are separated as blank lines separate them in conlleval's input: chunks end at a
sentence's end. Figures are fractions (conlleval prints percentages).

Counts: `correct` chunks, gold chunks `found_gold`, predicted chunks `found_predicted`;
precision = correct / found_predicted, recall = correct / found_gold (0 when the denominator
is 0), F1 = 2PR / (P + R) (0 when P + R is 0); accuracy = words whose whole tag matches / words.
Per type, the same over the chunks of that type.

Example (IOB1: the second `B-PER` starts a new chunk; conlleval finds 2 gold chunks):
    >>> scores = conlleval([["I-PER", "I-PER", "B-PER", "O"]], [["I-PER", "I-PER", "I-PER", "O"]])
    >>> scores["found_gold"], scores["found_predicted"], scores["correct"]
    (2, 1, 0)
    >>> conlleval([["B-LOC", "I-LOC", "O"]], [["B-LOC", "I-LOC", "O"]])["f1"]
    1.0
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from albert_tf.finetune.tagging.tag_schemes import split_tag

# conlleval.pl's (previous tag, tag) pairs that end a chunk before the word / start one at it.
_ENDING_PAIRS = {tuple(pair) for pair in ("BB", "BO", "IB", "IO", "EE", "EI", "EO")}
_STARTING_PAIRS = {tuple(pair) for pair in ("BB", "IB", "OB", "OI", "EE", "EI", "OE")}


def end_of_chunk(previous_tag: str, tag: str, previous_type: str, entity_type: str) -> bool:
    """conlleval.pl's `endOfChunk` (+ IOBES): does a chunk end before this word?"""
    if (previous_tag, tag) in _ENDING_PAIRS or previous_tag in ("]", "["):
        return True
    if previous_tag not in ("O", ".") and previous_type != entity_type:
        return True
    # IOBES (seqeval's additions; conlleval.pl has no S- and would merge "E-X B-X"): E- and
    # S- always close their chunk, B- and S- always open one. IOB1/IOB2 tags never reach here
    # with a different answer, so they score exactly as with conlleval.pl.
    return previous_tag in ("E", "S") or (previous_tag in ("B", "I") and tag == "S")


def start_of_chunk(previous_tag: str, tag: str, previous_type: str, entity_type: str) -> bool:
    """conlleval.pl's `startOfChunk` (+ IOBES): does a chunk start at this word?"""
    if (previous_tag, tag) in _STARTING_PAIRS or tag in ("[", "]"):
        return True
    if tag not in ("O", ".") and previous_type != entity_type:
        return True
    return tag in ("B", "S") or (previous_tag == "S" and tag in ("E", "I"))


def conlleval(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Scores `predicted` tags against `gold` (lists of sentences of tags, same shapes).

    Returns:
        `precision`, `recall`, `f1`, `accuracy`, the counts `correct`, `found_gold`,
        `found_predicted`, `words`, and `<type>/precision|recall|f1` for every type found in
        either side (sorted, as conlleval prints them).
    """
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sentences but {len(predicted)} predicted ones.")
    counts = _Counts()
    for index, (gold_tags, predicted_tags) in enumerate(zip(gold, predicted, strict=True)):
        if len(gold_tags) != len(predicted_tags):
            raise ValueError(
                f"sentence {index}: {len(gold_tags)} gold tags but {len(predicted_tags)} predicted."
            )
        # conlleval reads a blank line (sentence boundary) as the tag O of no type.
        for gold_tag, predicted_tag in zip(
            [*gold_tags, None], [*predicted_tags, None], strict=True
        ):
            counts.add(gold_tag, predicted_tag)
    return counts.scores()


class _Counts:
    """conlleval.pl's main loop, one word (or boundary, tag None) at a time."""

    def __init__(self) -> None:
        self.correct_chunks: collections.Counter[str] = collections.Counter()
        self.found_gold: collections.Counter[str] = collections.Counter()
        self.found_predicted: collections.Counter[str] = collections.Counter()
        self.correct_tags = 0
        self.words = 0
        self.in_correct = False
        self.last_gold = ("O", "")
        self.last_predicted = ("O", "")

    def add(self, gold_tag: str | None, predicted_tag: str | None) -> None:
        gold = split_tag(gold_tag) if gold_tag is not None else ("O", "")
        predicted = split_tag(predicted_tag) if predicted_tag is not None else ("O", "")
        gold_end = end_of_chunk(self.last_gold[0], gold[0], self.last_gold[1], gold[1])
        predicted_end = end_of_chunk(
            self.last_predicted[0], predicted[0], self.last_predicted[1], predicted[1]
        )
        if self.in_correct:
            if gold_end and predicted_end and self.last_predicted[1] == self.last_gold[1]:
                self.in_correct = False
                self.correct_chunks[self.last_gold[1]] += 1
            elif gold_end != predicted_end or predicted[1] != gold[1]:
                self.in_correct = False
        gold_start = start_of_chunk(self.last_gold[0], gold[0], self.last_gold[1], gold[1])
        predicted_start = start_of_chunk(
            self.last_predicted[0], predicted[0], self.last_predicted[1], predicted[1]
        )
        if gold_start and predicted_start and predicted[1] == gold[1]:
            self.in_correct = True
        if gold_start:
            self.found_gold[gold[1]] += 1
        if predicted_start:
            self.found_predicted[predicted[1]] += 1
        if gold_tag is not None:
            self.correct_tags += gold == predicted
            self.words += 1
        self.last_gold, self.last_predicted = gold, predicted

    def scores(self) -> dict[str, Any]:
        # Boundaries close every chunk, so nothing is left open (conlleval's final `inCorrect`).
        correct = sum(self.correct_chunks.values())
        found_gold = sum(self.found_gold.values())
        found_predicted = sum(self.found_predicted.values())
        scores: dict[str, Any] = dict(
            zip(
                ("precision", "recall", "f1"),
                _prf(correct, found_gold, found_predicted),
                strict=True,
            )
        )
        scores["accuracy"] = self.correct_tags / self.words if self.words else 0.0
        scores.update(
            correct=correct,
            found_gold=found_gold,
            found_predicted=found_predicted,
            words=self.words,
        )
        for entity_type in sorted(set(self.found_gold) | set(self.found_predicted)):
            type_scores = _prf(
                self.correct_chunks[entity_type],
                self.found_gold[entity_type],
                self.found_predicted[entity_type],
            )
            for name, value in zip(("precision", "recall", "f1"), type_scores, strict=True):
                scores[f"{entity_type}/{name}"] = value
        return scores


def _prf(correct: int, found_gold: int, found_predicted: int) -> tuple[float, float, float]:
    precision = correct / found_predicted if found_predicted else 0.0
    recall = correct / found_gold if found_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
