"""The trivial baseline of tagging: each word's most frequent tag in the training data.

Words never seen in training get the most frequent tag overall (`O` in NER data). Ties go to
the tag seen first. Scored with `conlleval` beside the model, it shows how much of a score is
memorized names.

Example:
    >>> table = most_frequent_tags([["Paris", "is", "so", "Paris"]], [["B-LOC", "O", "O", "B-PER"]])
    >>> predict_most_frequent([["Paris", "rocks"]], table)
    [['B-LOC', 'O']]
"""

from __future__ import annotations

import collections
from collections.abc import Sequence


def most_frequent_tags(
    words: Sequence[Sequence[str]], tags: Sequence[Sequence[str]]
) -> dict[str | None, str]:
    """word -> its most frequent tag; key None holds the most frequent tag overall."""
    per_word: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    overall: collections.Counter[str] = collections.Counter()
    for sentence_words, sentence_tags in zip(words, tags, strict=True):
        for word, tag in zip(sentence_words, sentence_tags, strict=True):
            per_word[word][tag] += 1
            overall[tag] += 1
    table: dict[str | None, str] = {
        word: counts.most_common(1)[0][0] for word, counts in per_word.items()
    }
    table[None] = overall.most_common(1)[0][0] if overall else "O"
    return table


def predict_most_frequent(
    words: Sequence[Sequence[str]], table: dict[str | None, str]
) -> list[list[str]]:
    """The baseline's tags for `words`."""
    return [[table.get(word, table[None]) for word in sentence] for sentence in words]
