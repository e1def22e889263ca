"""Held-out documents: the last N documents of a corpus, kept out of training for evaluation.

One rule for `albert-tf data --eval_documents=N` and `albert-tf quickstart`: the corpus's
documents in reading order (the files in the order `--input_file` expands to, each file's
documents in order) split into the training part, all but the last N, and the evaluation part,
the last N. A corpus of several files holds out the end of its last file (or files, when N
is larger than the last file's documents). Both parts stream: at most N documents are held in
memory.

Example:
    >>> list(held_out_part("abcde", 2, "train")), list(held_out_part("abcde", 2, "eval"))
    (['a', 'b', 'c'], ['d', 'e'])
    >>> check_held_out("ab", 2, where="corpus.txt")
    Traceback (most recent call last):
    ...
    albert_tf.errors.UserError: 2 documents; --eval_documents=2 holds out the last 2 ...
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Iterable, Iterator
from typing import TypeVar

from albert_tf.config_fields import check_choice
from albert_tf.errors import UserError

# "train": all but the last N documents; "eval": the last N.
PARTS = ("train", "eval")
T = TypeVar("T")


def held_out_part(documents: Iterable[T], eval_documents: int, part: str) -> Iterator[T]:
    """The `part` ("train" or "eval") of `documents` when the last `eval_documents` are held
    out; "train" is every document when `eval_documents` is 0."""
    check_choice("part", part, PARTS)
    if part == "eval":
        yield from collections.deque(documents, maxlen=eval_documents)
        return
    lagging: collections.deque = collections.deque()
    for document in documents:  # A document is training text once N others follow it.
        lagging.append(document)
        if len(lagging) > eval_documents:
            yield lagging.popleft()


def check_held_out(documents: Iterable, eval_documents: int, where: str) -> None:
    """A `UserError` unless `documents` holds more than `eval_documents` (N >= 0); reads at
    most N + 1 of them."""
    if eval_documents < 0:
        raise UserError(f"--eval_documents={eval_documents}", fix="pass 0 (none) or more")
    count = sum(1 for _ in itertools.islice(documents, eval_documents + 1))
    if count <= eval_documents:
        raise UserError(
            f"{count} documents; --eval_documents={eval_documents} holds out the last "
            f"{eval_documents} and leaves none to train on",
            where=where,
            fix="lower --eval_documents or add documents",
        )
