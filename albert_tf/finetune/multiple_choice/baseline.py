"""MCTest's sliding-window baseline for multiple choice (Richardson et al., 2013, Algorithms 1-2).

Nothing is learned: each option is scored against its own passage.

* Sliding window (SW): the option's words together with the question's form a set S; a window
  of |S| passage words slides over the passage, and a window scores the inverse counts
  `log(1 + 1 / count(word))` of its words that are in S (counts over the passage, so rare
  passage words weigh most). The option's score is its best window.
* Distance (D, optional): SW minus the distance, as a fraction of the passage length, between
  the closest pair of a question word and an option word found in the passage (stop words and
  the option's words that are also question words left out); 1 when either side has none.

Words are lowercased runs of letters and digits. A padding option ("", see `examples`) never
wins; ties go to the first option.

Example:
    >>> from albert_tf.finetune.multiple_choice.examples import MultipleChoiceExample
    >>> example = MultipleChoiceExample(
    ...     "q", "Tom has a red ball. Ann has a blue kite.", "Who has a blue kite?",
    ...     ("Tom", "Ann", ""), 1)
    >>> sliding_window_answer(example), sliding_window_answer(example, distance=True)
    (1, 1)
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from albert_tf.finetune.multiple_choice.examples import MultipleChoiceExample

_WORD = re.compile(r"\w+")
# Algorithm 2's stop words U: function words that would link any question to any option.
_STOP_WORDS = frozenset(
    "a an the and or but if of in on at to for from by with as is are was were be been being "
    "am do does did have has had it its this that these those there what which who whom whose "
    "when where why how not no i you he she we they me him her us them my your his our their "
    "so than then too very can could will would shall should may might must".split()
)


def words(text: str) -> list[str]:
    """The lowercased words of `text`, in order."""
    return _WORD.findall(text.lower())


def sliding_window_scores(
    passage: Sequence[str], question: Sequence[str], options: Sequence[Sequence[str]]
) -> np.ndarray:
    """Algorithm 1: each option's best window score (float64, one per option)."""
    counts = Counter(passage)
    inverse_counts = np.array([math.log1p(1.0 / counts[word]) for word in passage])
    scores = np.zeros(len(options))
    for index, option in enumerate(options):
        target = set(option) | set(question)
        weights = np.where([word in target for word in passage], inverse_counts, 0.0)
        # Window sums of width |S| at every start (windows near the end are shorter).
        totals = np.concatenate([[0.0], np.cumsum(weights)])
        ends = np.minimum(np.arange(len(passage)) + len(target), len(passage))
        starts = np.arange(len(passage))
        scores[index] = (totals[ends] - totals[starts]).max(initial=0.0)
    return scores


def distances(
    passage: Sequence[str], question: Sequence[str], options: Sequence[Sequence[str]]
) -> np.ndarray:
    """Algorithm 2's d_i: the closest question-option word pair in the passage, in (0, 1]."""
    positions: dict[str, list[int]] = {}
    for position, word in enumerate(passage):
        positions.setdefault(word, []).append(position)
    question_words = set(question)
    found_question = [positions[w] for w in question_words - _STOP_WORDS if w in positions]
    result = np.ones(len(options))
    for index, option in enumerate(options):
        option_words = set(option) - question_words - _STOP_WORDS
        found_option = [positions[w] for w in option_words if w in positions]
        if not found_question or not found_option or len(passage) < 2:
            continue
        question_at = np.concatenate(found_question)
        option_at = np.concatenate(found_option)
        closest = np.abs(question_at[:, None] - option_at[None, :]).min()
        result[index] = closest / (len(passage) - 1)
    return result


def sliding_window_answer(example: MultipleChoiceExample, distance: bool = False) -> int:
    """The index of the option SW (or SW+D with `distance`) scores highest."""
    passage, question = words(example.context), words(example.question)
    options = [words(option) for option in example.options]
    scores = sliding_window_scores(passage, question, options)
    if distance:
        scores = scores - distances(passage, question, options)
    scores[[not option.strip() for option in example.options]] = -np.inf
    return int(np.argmax(scores))
