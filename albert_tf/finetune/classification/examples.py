"""`Examples`: the texts, labels and ids of one task file, read and checked.

TSV files are read as the original GLUE readers do (`csv.reader(delimiter="\\t",
quotechar=None)`: quotes are ordinary characters); CSV files use standard CSV quoting. Every
problem (missing column, unknown label, non-numeric score, empty file) is reported with the
file and line.

Illustration (not run):
    spec = get_task("sst-2")
    examples = read_examples("glue/SST-2/dev.tsv", spec)
    len(examples), examples.texts_a[0], examples.labels[0]
    (872, "it 's a charming and often affecting journey . ", 1)
"""

from __future__ import annotations

import csv
import dataclasses
import os
import sys
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from albert_tf.errors import MissingInputError, UserError
from albert_tf.finetune.classification.task_specs import Column, ColumnLayout, TaskSpec

# GLUE fields can be long (MNLI parses); the csv default limit is 128 KiB.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


@dataclasses.dataclass(frozen=True)
class Examples:
    """The examples of one file.

    Attributes:
        texts_a: first texts.
        texts_b: second texts (pair tasks), else None.
        labels: int32 class ids or float32 scores, or None (unlabeled file).
        ids: the index column as text (row number when the layout has none), for predictions.
        path: the file read.
    """

    texts_a: list[str]
    texts_b: list[str] | None
    labels: np.ndarray | None
    ids: list[str]
    path: str

    def __len__(self) -> int:
        return len(self.texts_a)

    def take(self, count: int) -> Examples:
        """The first `count` examples (for subsampling a large training file)."""
        return Examples(
            self.texts_a[:count],
            None if self.texts_b is None else self.texts_b[:count],
            None if self.labels is None else self.labels[:count],
            self.ids[:count],
            self.path,
        )


def read_examples(path: str, spec: TaskSpec, labeled: bool = True) -> Examples:
    """Reads `path` with `spec.layout` (`labeled`) or `spec.test_layout` (unlabeled).

    Classification labels become ids into `spec.labels`; regression labels become floats.

    Raises:
        FileNotFoundError: `path` does not exist.
        ValueError: empty file, missing column, unknown label, bad score; naming file and line.
    """
    layout = spec.layout if labeled else spec.test_layout
    if labeled and spec.problem == "classification" and spec.labels is None:
        raise ValueError(f"Task {spec.name}: labels unknown; call infer_labels first.")
    texts_a: list[str] = []
    texts_b: list[str] | None = [] if layout.text_b is not None else None
    raw_labels: list[tuple[int, str]] = []
    ids: list[str] = []
    for line_number, field in _rows(path, layout, spec.name):
        texts_a.append(field(layout.text_a, "text"))
        if texts_b is not None:
            texts_b.append(field(layout.text_b, "second text"))
        if layout.index is not None:
            ids.append(field(layout.index, "index"))
        else:
            ids.append(str(len(ids)))
        if layout.label is not None:
            raw_labels.append((line_number, field(layout.label, "label")))
    if not texts_a:
        raise UserError(f"{path}: no examples (the file is empty or has only a header).")
    labels = _convert_labels(path, spec, raw_labels) if layout.label is not None else None
    return Examples(texts_a, texts_b, labels, ids, os.fspath(path))


def infer_labels(path: str, spec: TaskSpec) -> tuple[str, ...]:
    """The sorted distinct label values of a (training) file, for a generic task.

    Raises ValueError when the file holds fewer than two distinct labels.
    """
    values = sorted(
        {field(spec.layout.label, "label").strip() for _, field in _rows(path, spec.layout, "")}
    )
    if not values:
        raise UserError(f"{path}: no examples (the file is empty or has only a header).")
    if len(values) < 2:
        raise UserError(
            f"{path}: every example has label {values[0]!r}; classification needs at least two "
            "classes. Use --problem=regression for numeric targets."
        )
    return tuple(values)


def _rows(
    path: str, layout: ColumnLayout, task_name: str
) -> Iterator[tuple[int, Callable[[Column, str], str]]]:
    """Yields (line number, field getter) per data row; the getter raises with file:line."""
    if not os.path.isfile(path):
        raise MissingInputError(f"{path}: no such file (check --data_dir and the task's files).")
    line = 0
    try:
        for line, getter in _read_rows(path, layout, task_name):
            yield line, getter
    except UnicodeDecodeError as error:
        raise UserError(
            f"not UTF-8 text (after line {line})", where=path, fix="convert the file to UTF-8"
        ) from error


def _read_rows(
    path: str, layout: ColumnLayout, task_name: str
) -> Iterator[tuple[int, Callable[[Column, str], str]]]:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        if layout.delimiter == "\t":
            reader = csv.reader(handle, delimiter="\t", quotechar=None, quoting=csv.QUOTE_NONE)
        else:
            reader = csv.reader(handle, delimiter=layout.delimiter)
        positions: dict[Column, int] = {}
        header: list[str] | None = None
        if layout.has_header:
            header = next(reader, None)
            if header is None:
                raise UserError(f"{path}: empty file (expected a header line, then examples).")
            positions = _header_positions(path, header, layout, task_name)
        for row in reader:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # Blank line (e.g. at the end of the file).
            yield reader.line_num, _field_getter(path, reader.line_num, row, positions)


def _header_positions(
    path: str, header: list[str], layout: ColumnLayout, task_name: str
) -> dict[Column, int]:
    names = [name.strip() for name in header]
    positions: dict[Column, int] = {}
    for column in (layout.text_a, layout.text_b, layout.label, layout.index):
        if isinstance(column, str):
            if column not in names:
                for_task = f" for task {task_name}" if task_name else ""
                raise UserError(
                    f"{path}:1: the header has no column {column!r}{for_task} (columns: "
                    f"{names}). Check --task (or the --*_column flags and --has_header)."
                )
            positions[column] = names.index(column)
    return positions


def _field_getter(path: str, line_number: int, row: list[str], positions: dict[Column, int]):
    def field(column: Column, what: str) -> str:
        position = positions[column] if isinstance(column, str) else column
        if position >= len(row):
            raise UserError(
                f"{path}:{line_number}: missing {what} column {column!r} (position {position}); "
                f"the line has {len(row)} column(s). Fix or remove the line."
            )
        return row[position]

    return field


def _convert_labels(path: str, spec: TaskSpec, raw_labels: Sequence[tuple[int, str]]) -> np.ndarray:
    if spec.problem == "regression":
        scores = []
        for line_number, raw in raw_labels:
            try:
                scores.append(float(raw))
            except ValueError:
                raise UserError(
                    f"{path}:{line_number}: label {raw!r} is not a number (task {spec.name} is "
                    "a regression task)."
                ) from None
        return np.asarray(scores, np.float32)
    label_ids = {label: label_id for label_id, label in enumerate(spec.labels)}
    ids = []
    for line_number, raw in raw_labels:
        label = raw.strip()
        if label not in label_ids:
            raise UserError(
                f"{path}:{line_number}: unknown label {label!r}; task {spec.name} has labels "
                f"{list(spec.labels)}. Check --task (or --labels / --label_column)."
            )
        ids.append(label_ids[label])
    return np.asarray(ids, np.int32)


def read_unlabeled(path: str, spec: TaskSpec) -> Examples:
    """Reads texts to predict: with the test layout, or else the labeled one (labels ignored).

    The fallback lets `--do_predict` run on a dev file (GLUE test files have no label column
    but dev files have no `index` column); ids are then row numbers.
    """
    try:
        return read_examples(path, spec, labeled=False)
    except ValueError as test_layout_error:
        if "the header has no column" not in str(test_layout_error):
            raise
        labeled_layout = dataclasses.replace(spec.layout, label=None, index=None)
        try:
            return read_examples(path, spec.replace(test_layout=labeled_layout), labeled=False)
        except ValueError:
            raise test_layout_error from None
