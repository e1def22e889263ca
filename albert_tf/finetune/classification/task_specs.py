"""`TaskSpec`: what a fine-tuning task reads, predicts and is scored on.

The GLUE tasks keep the column layouts of the official GLUE files (the layouts BERT's and
ALBERT's `run_classifier.py` processors read). Columns are named by header where the file has
one, so a file of the wrong task fails with "no column 'sentence'" rather than training on the
wrong text; CoLA's train/dev files have no header and use positions.

Example:
    >>> spec = get_task("rte")
    >>> spec.layout.text_b, spec.labels
    ('sentence2', ('entailment', 'not_entailment'))
    >>> generic_task("tsv", text_a_column="0", label_column="1", has_header=False,
    ...              problem="regression").labels is None
    True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from albert_tf.config_fields import check_choice
from albert_tf.errors import UserError

Column = str | int  # A header name, or a 0-based position.

PROBLEMS = ("classification", "regression")
GENERIC_FORMATS = ("tsv", "csv")


@dataclasses.dataclass(frozen=True)
class ColumnLayout:
    """Where the fields of one example are in a delimited file.

    Args:
        text_a: column of the first (or only) text.
        text_b: column of the second text of a pair, or None.
        label: column of the label, or None (unlabeled test files).
        index: column of the example id written with predictions, or None (row number).
        has_header: the first line names the columns (then skipped).
        delimiter: "\\t" (GLUE: no quoting, as the original readers) or "," (CSV quoting).
    """

    text_a: Column
    text_b: Column | None = None
    label: Column | None = None
    index: Column | None = None
    has_header: bool = True
    delimiter: str = "\t"

    def __post_init__(self) -> None:
        named = [
            c for c in (self.text_a, self.text_b, self.label, self.index) if isinstance(c, str)
        ]
        if named and not self.has_header:
            raise UserError(
                f"Columns {named} are names but the file has no header; give 0-based positions."
            )


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """A sentence (pair) classification or regression task.

    Args:
        name: task name (e.g. "sst-2").
        problem: "classification" or "regression".
        labels: class names in id order (classification); None for regression, or for a
            generic classification task whose labels come from its training file
            (`with_labels`).
        metrics: metric names computed on dev (see
            `albert_tf.finetune.classification.metrics`); the first one is the task's main metric.
        layout: layout of the labeled files (train, dev).
        test_layout: layout of the unlabeled test files.
        train_file: file name of the training split under the data directory.
        dev_files: dev split file names -> names their metrics are reported under.
        test_files: test split file names -> GLUE submission file names.
    """

    name: str
    problem: str
    labels: tuple[str, ...] | None
    metrics: tuple[str, ...]
    layout: ColumnLayout
    test_layout: ColumnLayout
    train_file: str = "train.tsv"
    dev_files: tuple[tuple[str, str], ...] = (("dev.tsv", "dev"),)
    test_files: tuple[tuple[str, str], ...] = (("test.tsv", "test"),)

    def __post_init__(self) -> None:
        check_choice("problem", self.problem, PROBLEMS, where=f"task {self.name}")
        if self.problem == "classification" and self.labels is not None:
            if len(self.labels) < 2:
                raise UserError(
                    f"Task {self.name!r}: classification needs at least 2 labels, got "
                    f"{self.labels!r}."
                )
            if len(set(self.labels)) != len(self.labels):
                raise UserError(f"Task {self.name!r}: duplicate labels in {self.labels!r}.")
        if self.problem == "regression" and self.labels is not None:
            raise UserError(f"Task {self.name!r}: regression takes no labels.")

    @property
    def num_outputs(self) -> int:
        """Width of the model's output: number of classes, or 1 for regression."""
        if self.problem == "regression":
            return 1
        if self.labels is None:
            raise UserError(f"Task {self.name!r}: labels are not known yet; see with_labels.")
        return len(self.labels)

    def with_labels(self, labels: Sequence[str]) -> TaskSpec:
        """This task with its class names set (for labels inferred from the training file)."""
        return dataclasses.replace(self, labels=tuple(labels))

    @property
    def is_pair(self) -> bool:
        return self.layout.text_b is not None

    def replace(self, **changes) -> TaskSpec:
        return dataclasses.replace(self, **changes)


def _glue_pair(
    name: str,
    text_a: str,
    text_b: str,
    label: str,
    labels: tuple[str, ...] | None,
    metrics: tuple[str, ...],
    index: str = "index",
    **files,
) -> TaskSpec:
    return TaskSpec(
        name=name,
        problem="classification" if labels else "regression",
        labels=labels,
        metrics=metrics,
        layout=ColumnLayout(text_a=text_a, text_b=text_b, label=label),
        test_layout=ColumnLayout(text_a=text_a, text_b=text_b, index=index),
        **files,
    )


BINARY = ("0", "1")

GLUE_TASKS: dict[str, TaskSpec] = {
    # CoLA train/dev: no header; source, label, original label notation, sentence.
    "cola": TaskSpec(
        name="cola",
        problem="classification",
        labels=BINARY,
        metrics=("matthews_corrcoef", "accuracy"),
        layout=ColumnLayout(text_a=3, label=1, has_header=False),
        test_layout=ColumnLayout(text_a="sentence", index="index"),
        test_files=(("test.tsv", "CoLA"),),
    ),
    "sst-2": TaskSpec(
        name="sst-2",
        problem="classification",
        labels=BINARY,
        metrics=("accuracy",),
        layout=ColumnLayout(text_a="sentence", label="label"),
        test_layout=ColumnLayout(text_a="sentence", index="index"),
        test_files=(("test.tsv", "SST-2"),),
    ),
    # Quality, #1 ID, #2 ID, #1 String, #2 String (test: index instead of Quality).
    "mrpc": _glue_pair(
        "mrpc",
        "#1 String",
        "#2 String",
        "Quality",
        BINARY,
        ("f1", "accuracy"),
        test_files=(("test.tsv", "MRPC"),),
    ),
    # index genre filename year old_index source1 source2 sentence1 sentence2 score.
    "sts-b": _glue_pair(
        "sts-b",
        "sentence1",
        "sentence2",
        "score",
        None,
        ("pearson", "spearman"),
        test_files=(("test.tsv", "STS-B"),),
    ),
    # id qid1 qid2 question1 question2 is_duplicate (test: id question1 question2).
    "qqp": _glue_pair(
        "qqp",
        "question1",
        "question2",
        "is_duplicate",
        BINARY,
        ("accuracy", "f1"),
        index="id",
        test_files=(("test.tsv", "QQP"),),
    ),
    # index promptID pairID genre 4 parses sentence1 sentence2 label1..label5 gold_label.
    "mnli": _glue_pair(
        "mnli",
        "sentence1",
        "sentence2",
        "gold_label",
        ("contradiction", "entailment", "neutral"),
        ("accuracy",),
        dev_files=(("dev_matched.tsv", "dev_matched"), ("dev_mismatched.tsv", "dev_mismatched")),
        test_files=(("test_matched.tsv", "MNLI-m"), ("test_mismatched.tsv", "MNLI-mm")),
    ),
    "qnli": _glue_pair(
        "qnli",
        "question",
        "sentence",
        "label",
        ("entailment", "not_entailment"),
        ("accuracy",),
        test_files=(("test.tsv", "QNLI"),),
    ),
    "rte": _glue_pair(
        "rte",
        "sentence1",
        "sentence2",
        "label",
        ("entailment", "not_entailment"),
        ("accuracy",),
        test_files=(("test.tsv", "RTE"),),
    ),
}

TASK_NAMES = (*GLUE_TASKS, *GENERIC_FORMATS)
# Spellings of GLUE task names that users type.
_TASK_ALIASES = {"sst2": "sst-2", "stsb": "sts-b", "sts": "sts-b"}


def canonical_task_name(name: str) -> str:
    """`name` as `TASK_NAMES` spell it ("SST2", "sst_2" -> "sst-2"); unknown names unchanged.

    Example:
        >>> canonical_task_name("STS_B"), canonical_task_name("tsv")
        ('sts-b', 'tsv')
    """
    key = name.lower().replace("_", "-")
    return _TASK_ALIASES.get(key, key)


def get_task(name: str, labels: Sequence[str] | None = None) -> TaskSpec:
    """The GLUE task `name` (case-insensitive; "sst2" and "sst-2" both work).

    `labels`, when given, must be the task's own label set (a check against a wrong --labels).
    """
    key = canonical_task_name(name)
    check_choice("task", key, GLUE_TASKS)
    spec = GLUE_TASKS[key]
    if labels:
        if spec.labels is None:
            raise UserError(f"Task {spec.name} is a regression task; it takes no --labels.")
        if tuple(labels) != spec.labels:
            raise UserError(
                f"--labels {list(labels)} do not match task {spec.name}'s labels "
                f"{list(spec.labels)}; leave --labels out for GLUE tasks."
            )
    return spec


def parse_column(value: str | int | None) -> Column | None:
    """A flag value as a column: digits are a 0-based position, anything else a header name."""
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    return int(value) if value.strip().isdigit() else value


def generic_task(
    file_format: str,
    text_a_column: str | int,
    label_column: str | int | None,
    text_b_column: str | int | None = None,
    index_column: str | int | None = None,
    has_header: bool = True,
    problem: str = "classification",
    labels: Sequence[str] | None = None,
    train_file: str | None = None,
    dev_file: str | None = None,
    test_file: str | None = None,
) -> TaskSpec:
    """A task over any TSV/CSV file; columns are header names or 0-based positions.

    `labels` may be None for classification: they are then read from the training file
    (`albert_tf.finetune.classification.examples.infer_labels`) and set with `TaskSpec.with_labels`.
    """
    check_choice("task", file_format, GENERIC_FORMATS)
    check_choice("problem", problem, PROBLEMS)
    if problem == "regression" and labels:
        raise UserError("--labels is for classification; a regression task takes none.")
    text_a, text_b = parse_column(text_a_column), parse_column(text_b_column)
    label, index = parse_column(label_column), parse_column(index_column)
    if text_a is None:
        raise UserError("--text_a_column is required for --task=tsv/csv.")
    if label is None:
        raise UserError("--label_column is required for --task=tsv/csv.")
    delimiter = "\t" if file_format == "tsv" else ","
    layout = ColumnLayout(text_a, text_b, label, index, has_header, delimiter)
    # Test files hold the same columns; their label column, if any, is ignored.
    test_layout = dataclasses.replace(layout, label=None)
    extension = f".{file_format}"
    return TaskSpec(
        name=file_format,
        problem=problem,
        labels=tuple(labels) if labels else None,
        metrics=("accuracy", "f1") if problem == "classification" else ("pearson", "spearman"),
        layout=layout,
        test_layout=test_layout,
        train_file=train_file or "train" + extension,
        dev_files=((dev_file or "dev" + extension, "dev"),),
        test_files=((test_file or "test" + extension, "test"),),
    )
