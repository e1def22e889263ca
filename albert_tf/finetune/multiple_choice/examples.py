"""Reading multiple-choice files: RACE's layout and generic JSONL / CSV, checked.

RACE (`read_race`): one JSON object per article file with `article`, `questions`, `options`
(a list per question), `answers` (letters) and `id`; other fields (e.g. RACE+'s `evidences`)
are ignored. A path is a file, a glob, or a directory searched recursively for `*.json` (RACE's
`train|dev|test/{middle,high}` folders: the folder name becomes the example's `level`).
Questions may have 2 to 4 options (RACE+ has some with 2 or 3); empty options are kept as
padding: they get no probability (see `choice_features`) and cannot be the answer.

Generic (`read_generic`): JSONL (`.jsonl`/`.json`, one object per line) or CSV (`.csv`, or
`.tsv` tab-separated) with a context, a question, the options (a JSON list, or one column
per option such as Cosmos QA's `answer0..answer3`) and a label (0-based index or letter).

Every problem is a `UserError` naming the file and the line (or article id and question).

Illustration (not run):
    examples = read_race("race_plus/dev")
    examples[0].id, examples[0].options[examples[0].label]
    # ('00052cc8-0', 'schools used to have no lessons on sleep')
"""

from __future__ import annotations

import csv
import dataclasses
import glob
import hashlib
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from albert_tf.errors import UserError

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))

MAX_RACE_OPTIONS = 4
MIN_OPTIONS = 2
LEVELS = ("middle", "high")
# CSV columns taken as options when none are named: answer0, option_1, ending2, choice3, ...
_OPTION_COLUMN = re.compile(r"^(answer|option|ending|choice)_?(\d+)$", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class MultipleChoiceExample:
    """One question.

    Attributes:
        id: written with the predictions (RACE: `<article id>-<question index>`).
        context: the article / passage.
        question: may hold a "_" blank that the options fill.
        options: option texts; "" is a padding option.
        label: index of the answer in `options`, None for unlabeled data.
        level: RACE's "middle" or "high" (from the folder), else "".
        group: what `split_by_group` keeps together (the article).
    """

    id: str
    context: str
    question: str
    options: tuple[str, ...]
    label: int | None
    level: str = ""
    group: str = ""


@dataclasses.dataclass(frozen=True)
class GenericColumns:
    """Where a generic file keeps each field (header names / JSON keys)."""

    context: str = "context"
    question: str = "question"
    options: str = "options"  # JSONL: a list of strings.
    option_columns: tuple[str, ...] = ()  # One column per option (CSV default: detected).
    label: str = "label"
    id: str = "id"  # Optional; the line number when absent.


def _files(path: str) -> list[str]:
    if os.path.isdir(path):
        found = glob.glob(os.path.join(path, "**", "*.json"), recursive=True)
    elif os.path.isfile(path):
        found = [path]
    else:
        found = glob.glob(path)
    if not found:
        raise UserError("no RACE .json files", where=path, fix="check the path or glob")
    return sorted(found)


def _level(path: str) -> str:
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return folder if folder in LEVELS else ""


def letter_to_index(answer: Any, num_options: int, where: str) -> int:
    """'A' -> 0, ...; the letter must name one of `num_options` options."""
    last = chr(ord("A") + num_options - 1)
    if not (isinstance(answer, str) and len(answer.strip()) == 1 and answer.strip().isalpha()):
        raise UserError(f"answer {answer!r} is not a letter A-{last}", where=where)
    index = ord(answer.strip().upper()) - ord("A")
    if not 0 <= index < num_options:
        raise UserError(
            f"answer {answer!r} is out of range: the question has {num_options} options (A-{last})",
            where=where,
        )
    return index


def _check_options(options: Any, where: str, max_options: int | None) -> tuple[str, ...]:
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise UserError("options must be a list of strings", where=where)
    if len(options) < MIN_OPTIONS or (max_options is not None and len(options) > max_options):
        allowed = f"{MIN_OPTIONS}-{max_options}" if max_options else f"at least {MIN_OPTIONS}"
        raise UserError(f"wrong number of options: {len(options)} (allowed: {allowed})", where)
    return tuple(options)


def _check_label(label: int, options: tuple[str, ...], where: str) -> int:
    if not options[label].strip():
        raise UserError(f"the answer (option {label}) is an empty option", where=where)
    return label


def _not_utf8(path: str, error: UnicodeDecodeError) -> UserError:
    return UserError(
        f"not UTF-8 text ({error.reason} at byte {error.start})",
        where=path,
        fix="convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
    )


def _load_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError as error:
        raise _not_utf8(path, error) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(f"invalid JSON ({error.msg})", where=f"{path}:{error.lineno}") from None


def read_race(path: str, labeled: bool = True) -> list[MultipleChoiceExample]:
    """The questions of every RACE article file under `path` (sorted by file name)."""
    examples = []
    for file_path in _files(path):
        examples.extend(_race_article(file_path, labeled))
    return examples


def _race_article(path: str, labeled: bool) -> list[MultipleChoiceExample]:
    data = _load_json(path)
    required = ("article", "questions", "options") + (("answers",) if labeled else ())
    if not isinstance(data, dict):
        raise UserError("not a RACE article (a JSON object)", where=path)
    missing = [name for name in required if name not in data]
    if missing:
        raise UserError(f"missing field {', '.join(missing)}", where=path)
    article_id = str(data.get("id") or os.path.splitext(os.path.basename(path))[0])
    questions, options = data["questions"], data["options"]
    answers = data["answers"] if labeled else [None] * len(questions)
    lengths = {"questions": len(questions), "options": len(options), "answers": len(answers)}
    if len(set(lengths.values())) != 1:
        counts = ", ".join(f"{count} {name}" for name, count in lengths.items())
        raise UserError(f"{counts}: one of each per question", where=f"{path} (id {article_id})")
    examples = []
    for index, (question, choices, answer) in enumerate(
        zip(questions, options, answers, strict=True)
    ):
        where = f"{path} (id {article_id}, question {index})"
        if not isinstance(question, str):
            raise UserError("question must be a string", where=where)
        choices = _check_options(choices, where, MAX_RACE_OPTIONS)
        label = None
        if labeled:
            label = _check_label(letter_to_index(answer, len(choices), where), choices, where)
        examples.append(
            MultipleChoiceExample(
                id=f"{article_id}-{index}",
                context=str(data["article"]),
                question=question,
                options=choices,
                label=label,
                level=_level(path),
                group=article_id,
            )
        )
    return examples


def read_generic(
    path: str, columns: GenericColumns = GenericColumns(), labeled: bool = True
) -> list[MultipleChoiceExample]:
    """Questions of a JSONL or CSV/TSV file (by extension), checked line by line."""
    if not os.path.isfile(path):
        raise UserError("no such file", where=path, fix="check --train_file/--dev_file/--test_file")
    extension = os.path.splitext(path)[1].lower()
    if extension in (".jsonl", ".json"):
        rows = _jsonl_rows(path)
    elif extension in (".csv", ".tsv"):
        rows = _csv_rows(path, "\t" if extension == ".tsv" else ",")
    else:
        raise UserError(
            f"unknown multiple-choice file type {extension!r}",
            where=path,
            fix="use .jsonl/.json (one object per line) or .csv/.tsv",
        )
    examples = [
        _generic_example(row, f"{path}:{line}", line, columns, labeled) for line, row in rows
    ]
    if not examples:
        raise UserError("no examples", where=path)
    return examples


def _jsonl_rows(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        with open(path, encoding="utf-8") as handle:
            for line_number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as error:
                    raise UserError(
                        f"invalid JSON ({error.msg})", where=f"{path}:{line_number}"
                    ) from None
                if not isinstance(row, dict):
                    raise UserError("a line must be a JSON object", where=f"{path}:{line_number}")
                yield line_number, row
    except UnicodeDecodeError as error:
        raise _not_utf8(path, error) from None


def _csv_rows(path: str, delimiter: str) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            header = next(reader, None)
            if header is None:
                raise UserError("empty file (a header line is needed)", where=path)
            for row in reader:
                if not row:
                    continue
                if len(row) != len(header):
                    raise UserError(
                        f"{len(row)} fields, the header has {len(header)}",
                        where=f"{path}:{reader.line_num}",
                    )
                yield reader.line_num, dict(zip(header, row, strict=True))
    except UnicodeDecodeError as error:
        raise _not_utf8(path, error) from None


def _option_columns(row: dict[str, Any], columns: GenericColumns) -> Sequence[str]:
    if columns.option_columns:
        return columns.option_columns
    numbered = [(int(m.group(2)), name) for name in row if (m := _OPTION_COLUMN.match(name))]
    return [name for _, name in sorted(numbered)]


def _field(row: dict[str, Any], name: str, where: str) -> Any:
    if name not in row:
        raise UserError(f"missing field {name!r}", where=where, fix="name it with its flag")
    return row[name]


def _generic_example(
    row: dict[str, Any], where: str, line: int, columns: GenericColumns, labeled: bool
) -> MultipleChoiceExample:
    if columns.options in row and not columns.option_columns:
        options = row[columns.options]
    else:
        names = _option_columns(row, columns)
        if not names:
            raise UserError(
                f"no options: no field {columns.options!r} and no option columns",
                where=where,
                fix="add an options list or columns answer0, answer1, ... (--option_columns)",
            )
        options = [_field(row, name, where) for name in names]
    options = _check_options(options, where, None)
    context = _field(row, columns.context, where)
    question = _field(row, columns.question, where)
    label = None
    if labeled:
        label = _check_label(
            _label_index(_field(row, columns.label, where), options, where), options, where
        )
    example_id = row.get(columns.id)
    return MultipleChoiceExample(
        id=str(example_id) if example_id not in (None, "") else str(line),
        context=str(context),
        question=str(question),
        options=options,
        label=label,
        group=str(context),
    )


def _label_index(value: Any, options: tuple[str, ...], where: str) -> int:
    """0-based index (int or digits) or a letter."""
    text = str(value).strip()
    if isinstance(value, bool) or not text:
        raise UserError(f"label {value!r} is not an option index or letter", where=where)
    if isinstance(value, int) or text.lstrip("-").isdigit():
        index = int(text)
        if not 0 <= index < len(options):
            raise UserError(
                f"label {index} is out of range: {len(options)} options (0-{len(options) - 1})",
                where=where,
            )
        return index
    return letter_to_index(text, len(options), where)


def split_by_group(
    examples: Sequence[MultipleChoiceExample], fraction: float
) -> tuple[list[MultipleChoiceExample], list[MultipleChoiceExample]]:
    """(kept, held out): whole groups (articles) held out by a hash of their name.

    Deterministic (no seed, no order dependence): a group is held out when the first 8 hex
    digits of its MD5, as a fraction of 16**8, are below `fraction`.

    Example:
        >>> a = MultipleChoiceExample("a-0", "text a", "q", ("x", "y"), 0, group="a")
        >>> b = MultipleChoiceExample("b-0", "text b", "q", ("x", "y"), 1, group="b")
        >>> [len(part) for part in split_by_group([a, b, a], 0.5)]
        [1, 2]
    """
    kept, held_out = [], []
    for example in examples:
        digest = hashlib.md5(example.group.encode("utf-8")).hexdigest()
        (held_out if int(digest[:8], 16) / 16**8 < fraction else kept).append(example)
    return kept, held_out
