"""The transfer set of a distillation: the task's training examples plus unlabeled text.

A student learns from the teacher's outputs on every example it trains on, so text of the
task's domain without labels is more to learn from (`--unlabeled_file`). Its examples carry
only the teacher's targets: each training element gets sample weights (shaped like its
labels), 1 for the task's labeled examples and 0 for the unlabeled ones, which
`LabelWeightedDistiller` applies to the label loss (and the training metrics); the teacher's
term covers them all.

The file is plain UTF-8 text, one example per line (blank lines skipped):

* classification: one text per line; for a sentence-pair task, `text_a<TAB>text_b`;
* tagging: one sentence per line, split into words at whitespace (a CoNLL file's word column);
* other families (multiple choice: a question and its options) are refused.

`read_unlabeled` reads and checks it before anything is written;
`with_unlabeled` adds its featurized examples to the family's `TrainingData`.

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "more.txt")
    >>> _ = open(path, "w").write("a fine film\\n\\nDull .\\n")
    >>> read_unlabeled(path, "classification", is_pair=False).texts
    (('a fine film',), ('Dull .',))
    >>> read_unlabeled(path, "tagging").texts
    (('a', 'fine', 'film'), ('Dull', '.'))
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

import numpy as np
import tensorflow as tf

from albert_tf.errors import MissingInputError, UserError
from albert_tf.finetune.classification.datasets import featurized_examples
from albert_tf.finetune.classification.examples import Examples
from albert_tf.finetune.tagging.datasets import training_windows
from albert_tf.finetune.tagging.word_pieces import IGNORE_LABEL
from albert_tf.finetune.task_family import TrainingData

UNLABELED_FLAG = "--unlabeled_file"
# What the reports call the unlabeled part of the transfer set (its training elements: for
# tagging, windows of the encoder's length, as `train_examples` counts them).
UNLABELED_COUNT = "train_unlabeled_examples"
FAMILIES = ("classification", "tagging")


@dataclasses.dataclass(frozen=True)
class UnlabeledTexts:
    """The examples of an unlabeled file, as its family reads them.

    Attributes:
        family: the task family they are for ("classification" or "tagging").
        texts: per example, its texts (classification: `(text,)` or `(text_a, text_b)`) or
            its words (tagging).
        path: the file read.
    """

    family: str
    texts: tuple[tuple[str, ...], ...]
    path: str

    def __len__(self) -> int:
        return len(self.texts)


def read_unlabeled(path: str, family: str, is_pair: bool = False) -> UnlabeledTexts:
    """The examples of `path` for a student of `family` (`is_pair`: a sentence-pair
    classification task); a `UserError` naming the file (and line) when it is missing, empty,
    not UTF-8, of the wrong layout, or the family takes no unlabeled text."""
    if family not in FAMILIES:
        raise UserError(
            f"{UNLABELED_FLAG} does not apply to {family} runs (one line of text is not one "
            "of its examples)",
            where=UNLABELED_FLAG,
            fix=f"leave it out, or distill a {' or '.join(FAMILIES)} run",
        )
    if not os.path.isfile(path):
        raise MissingInputError(
            "no such file", where=path, fix=f"pass {UNLABELED_FLAG} a text file, one per line"
        )
    texts = tuple(
        _example(line, family, is_pair, f"{path}:{number}") for number, line in _lines(path)
    )
    if not texts:
        raise UserError(
            "the unlabeled file holds no text",
            where=path,
            fix=f"pass {UNLABELED_FLAG} a text file, one example per line",
        )
    return UnlabeledTexts(family, texts, path)


def _lines(path: str) -> Iterator[tuple[int, str]]:
    """(1-based number, text) of each non-blank line; non-UTF-8 bytes -> a `UserError`."""
    number = 0
    with open(path, encoding="utf-8") as handle:
        try:
            for number, line in enumerate(handle, start=1):
                line = line.rstrip("\r\n")
                if line.strip():
                    yield number, line
        except UnicodeDecodeError as error:
            raise UserError(
                f"not UTF-8 text ({error.reason})",
                where=f"{path}:{number + 1}",
                fix="convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
            ) from None


def _example(line: str, family: str, is_pair: bool, where: str) -> tuple[str, ...]:
    """One line as its family's example: words (tagging), one text, or a pair of texts."""
    if family == "tagging":
        return tuple(line.split())
    if not is_pair:
        return (line.strip(),)
    fields = line.split("\t")
    if len(fields) != 2 or not all(field.strip() for field in fields):
        raise UserError(
            f"a sentence-pair task's unlabeled line needs two texts and one tab, not "
            f"{len(fields) - 1} tab(s)",
            where=where,
            fix="write each pair as text_a<TAB>text_b",
        )
    return tuple(field.strip() for field in fields)


def with_unlabeled(data: TrainingData, unlabeled: UnlabeledTexts, featurizer) -> TrainingData:
    """`data` (the family's labeled examples) and `unlabeled`'s featurized examples, each
    element with its label weight (1 labeled, 0 unlabeled); the counts add up."""
    extra, count = _featurized(unlabeled, featurizer, data.examples.element_spec[1])
    examples = data.examples.map(_weighted(1.0)).concatenate(extra.map(_weighted(0.0)))
    results = {**data.results, UNLABELED_COUNT: count}
    return TrainingData(examples, data.count + count, results, data.label_counts)


def _weighted(weight: float):
    """`(features, labels)` -> `(features, labels, weights)`, for `Dataset.map`: `weight` in
    the labels' shape (one per example, or per position for tagging, as Keras's losses
    take it)."""

    def add_weight(features, labels):
        return features, labels, tf.fill(tf.shape(labels), tf.constant(weight, tf.float32))

    return add_weight


def _featurized(
    unlabeled: UnlabeledTexts, featurizer, label_spec: tf.TensorSpec
) -> tuple[tf.data.Dataset, int]:
    """(one `(features, placeholder labels)` element per example or window; their number).

    The placeholder labels have the labeled ones' dtype (so the two concatenate): zeros for
    classification, the ignored label at every position for tagging."""
    if unlabeled.family == "tagging":
        words = [list(sentence) for sentence in unlabeled.texts]
        return training_windows(words, [[IGNORE_LABEL] * len(s) for s in words], featurizer)
    count = len(unlabeled)
    columns = list(zip(*unlabeled.texts, strict=True))
    examples = Examples(
        texts_a=list(columns[0]),
        texts_b=list(columns[1]) if len(columns) > 1 else None,
        labels=np.zeros(count, label_spec.dtype.as_numpy_dtype),
        ids=[str(index) for index in range(count)],
        path=unlabeled.path,
    )
    return featurized_examples(examples, featurizer), count
