"""Reading SQuAD JSON files (v1.1 and v2.0) into `SquadExample`s, checked.

Schema: `{"version", "data": [{"title", "paragraphs": [{"context", "qas": [{"id",
"question", "answers": [{"text", "answer_start"}], "is_impossible", "plausible_answers"}]}]}]}`.
v2.0 adds `is_impossible` (with empty `answers`) and `plausible_answers` (not used for
training or scoring, as in the official evaluation).

Every problem is a `UserError` naming the file and the question id: malformed JSON (with its
line and column), a missing or whitespace-only context, an answer outside the context or whose
text is not at `answer_start`, duplicate ids, an empty file, and unanswerable questions read
without `--version_2_with_negative`.

Example:
    >>> import json, tempfile
    >>> path = tempfile.mktemp(suffix=".json")
    >>> qa = {"id": "q1", "question": "Who?", "answers": [{"text": "Ann", "answer_start": 0}]}
    >>> _ = open(path, "w").write(json.dumps(
    ...     {"version": "1.1", "data": [{"paragraphs": [{"context": "Ann ran.", "qas": [qa]}]}]}))
    >>> data = read_squad(path)
    >>> data.examples[0].answers[0].text, data.is_v2
    ('Ann', False)
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from albert_tf.errors import UserError

_V2_FLAG = "--version_2_with_negative"


@dataclasses.dataclass(frozen=True)
class Answer:
    """A gold answer: its text and character offset in the original context."""

    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclasses.dataclass(frozen=True)
class SquadExample:
    """One question on one context, with its gold answers (empty when unanswerable)."""

    qas_id: str
    question: str
    context: str
    answers: tuple[Answer, ...] = ()
    is_impossible: bool = False


@dataclasses.dataclass(frozen=True)
class SquadData:
    """The examples of one file, whether it has unanswerable questions, and its path."""

    examples: list[SquadExample]
    is_v2: bool
    path: str


def read_squad(path: str, version_2_with_negative: bool | None = None) -> SquadData:
    """Reads and checks a SQuAD file.

    Args:
        path: the JSON file.
        version_2_with_negative: False refuses files with unanswerable questions (a v1 run
            would score them wrongly); True or None accepts both versions.

    Raises:
        UserError: see the module docstring.
    """
    document = _load_json(path)
    examples: list[SquadExample] = []
    seen: set[str] = set()
    for article in _get(document, "data", list, path, "the top level"):
        for paragraph in _get(article, "paragraphs", list, path, "an article"):
            examples.extend(_read_paragraph(paragraph, path, seen))
    if not examples:
        raise UserError("no questions", where=path, fix="pass a SQuAD file with questions")
    is_v2 = any(example.is_impossible for example in examples)
    if is_v2 and version_2_with_negative is False:
        first = next(example for example in examples if example.is_impossible)
        raise UserError(
            "the file has unanswerable questions (SQuAD v2.0)",
            where=f"{path}: question {first.qas_id}",
            fix=f"pass {_V2_FLAG}",
        )
    return SquadData(examples, is_v2 or str(document.get("version", "")).startswith("v2"), path)


def _load_json(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError as error:
        raise UserError("no such file", where=path, fix="check the file path") from error
    except json.JSONDecodeError as error:
        raise UserError(
            f"malformed JSON ({error.msg})",
            where=f"{path}:{error.lineno}:{error.colno}",
            fix="fix the file (it must be SQuAD JSON)",
        ) from error
    except UnicodeDecodeError as error:
        raise UserError(f"not UTF-8 ({error})", where=path) from error
    if not isinstance(document, dict):
        raise UserError("not a SQuAD file (the top level is not an object)", where=path)
    return document


def _get(record: Any, key: str, kind: type, path: str, where: str) -> Any:
    value = record.get(key) if isinstance(record, dict) else None
    if not isinstance(value, kind):
        raise UserError(
            f"{where} has no {key!r} {kind.__name__}", where=path, fix="use the SQuAD schema"
        )
    return value


def _read_paragraph(paragraph: Any, path: str, seen: set[str]) -> list[SquadExample]:
    questions = _get(paragraph, "qas", list, path, "a paragraph")
    context = paragraph.get("context")
    examples = []
    for qa in questions:
        qas_id = str(qa.get("id", "")) if isinstance(qa, dict) else ""
        where = f"{path}: question {qas_id or '(no id)'}"
        if not qas_id:
            raise UserError("a question has no 'id'", where=where, fix="give every question an id")
        if qas_id in seen:
            raise UserError("duplicate question id", where=where, fix="make ids unique")
        seen.add(qas_id)
        if not isinstance(context, str):
            raise UserError("the question has no context", where=where, fix="add its 'context'")
        if not context.strip():
            raise UserError("the context is empty or only whitespace", where=where)
        question = qa.get("question")
        if not isinstance(question, str):
            raise UserError("no 'question' text", where=where)
        is_impossible = bool(qa.get("is_impossible", False))
        answers = () if is_impossible else _read_answers(qa, context, where)
        examples.append(SquadExample(qas_id, question, context, answers, is_impossible))
    return examples


def _read_answers(qa: dict[str, Any], context: str, where: str) -> tuple[Answer, ...]:
    raw = qa.get("answers")
    if not isinstance(raw, list) or not raw:
        raise UserError(
            "an answerable question has no answers",
            where=where,
            fix="add answers, or mark it 'is_impossible': true (SQuAD v2.0)",
        )
    answers = []
    for item in raw:
        text, start = item.get("text"), item.get("answer_start")
        if not isinstance(text, str) or not isinstance(start, int) or not text:
            raise UserError("an answer lacks 'text' or an integer 'answer_start'", where=where)
        if not 0 <= start <= len(context) - len(text):
            raise UserError(
                f"answer_start {start} (+{len(text)} characters) is outside the context of "
                f"{len(context)} characters",
                where=where,
            )
        found = context[start : start + len(text)]
        if found != text:
            raise UserError(
                f"the answer text {text!r} is not at answer_start {start} (found {found!r})",
                where=where,
            )
        answers.append(Answer(text, start))
    return tuple(answers)
