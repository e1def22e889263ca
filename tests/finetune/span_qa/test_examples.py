"""Reading SQuAD files: both versions, and each malformed input as a UserError naming file + id."""

from __future__ import annotations

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.span_qa.examples import read_squad
from tests.finetune.span_qa.conftest import SQUAD_DIR, squad_json, write_json

CONTEXT = "Ann ran to the park."


def qa(qas_id="q1", text="the park", start=11, **extra):
    return {
        "id": qas_id,
        "question": "Where?",
        "answers": [{"text": text, "answer_start": start}],
        **extra,
    }


def test_reads_the_shared_files_with_their_documented_counts():
    xquad = read_squad(str(SQUAD_DIR / "v1.1/xquad.en.json"), version_2_with_negative=False)
    train = read_squad(str(SQUAD_DIR / "v2.0/train.json"), version_2_with_negative=True)
    dev = read_squad(str(SQUAD_DIR / "v2.0/dev.json"), version_2_with_negative=True)
    assert (len(xquad.examples), xquad.is_v2) == (1190, False)
    assert (len(train.examples), train.is_v2) == (4449, True)
    assert (len(dev.examples), dev.is_v2) == (1629, True)
    assert sum(e.is_impossible for e in train.examples) == 2342
    assert sum(e.is_impossible for e in dev.examples) == 826
    assert all(e.answers == () for e in dev.examples if e.is_impossible)


def test_unanswerable_question_has_no_answers_and_plausible_ones_are_ignored(tmp_path):
    impossible = {
        "id": "q2",
        "question": "Why?",
        "answers": [],
        "is_impossible": True,
        "plausible_answers": [{"text": "Ann", "answer_start": 0}],
    }
    path = write_json(
        tmp_path / "f.json", squad_json([{"context": CONTEXT, "qas": [qa(), impossible]}])
    )
    data = read_squad(path, version_2_with_negative=True)
    assert data.is_v2
    assert [(e.qas_id, e.is_impossible, len(e.answers)) for e in data.examples] == [
        ("q1", False, 1),
        ("q2", True, 0),
    ]
    assert data.examples[0].answers[0].end == 19


def _error(tmp_path, document, **kwargs) -> UserError:
    path = write_json(tmp_path / "bad.json", document)
    with pytest.raises(UserError) as info:
        read_squad(path, **kwargs)
    assert str(tmp_path / "bad.json") in str(info.value)
    return info.value


def test_malformed_json_names_line_and_column(tmp_path):
    error = _error(tmp_path, '{"data": [\n  {"paragraphs": [}\n]}')
    assert "malformed JSON" in str(error) and "bad.json:2:" in error.where


@pytest.mark.parametrize(
    "paragraph, message",
    [
        ({"qas": [qa()]}, "no context"),
        ({"context": " \n\t ", "qas": [qa(start=0, text=" ")]}, "only whitespace"),
        ({"context": CONTEXT, "qas": [qa(start=15, text="the park")]}, "outside the context"),
        ({"context": CONTEXT, "qas": [qa(start=-1)]}, "outside the context"),
        ({"context": CONTEXT, "qas": [qa(start=10, text="the park")]}, "not at answer_start"),
        (
            {"context": CONTEXT, "qas": [{"id": "q1", "question": "?", "answers": []}]},
            "has no answers",
        ),
        ({"context": CONTEXT, "qas": [qa(), qa()]}, "duplicate question id"),
    ],
)
def test_bad_questions_name_the_file_and_question_id(tmp_path, paragraph, message):
    error = _error(tmp_path, squad_json([paragraph]))
    assert message in str(error)
    assert "question q1" in error.where


def test_empty_file_is_an_error(tmp_path):
    assert "no questions" in str(_error(tmp_path, squad_json([])))
    assert "no 'data'" in str(_error(tmp_path, {"version": "1.1"}))


def test_v2_file_without_version_2_flag_is_an_error(tmp_path):
    impossible = {"id": "q9", "question": "Why?", "answers": [], "is_impossible": True}
    error = _error(
        tmp_path,
        squad_json([{"context": CONTEXT, "qas": [impossible]}]),
        version_2_with_negative=False,
    )
    assert "--version_2_with_negative" in str(error) and "question q9" in error.where


def test_v1_file_with_version_2_flag_reads_as_v1(tmp_path):
    # Documented: a v1.1 file in a v2 run is answered and scored without no-answers.
    path = write_json(
        tmp_path / "v1.json", squad_json([{"context": CONTEXT, "qas": [qa()]}], version="1.1")
    )
    assert read_squad(path, version_2_with_negative=True).is_v2 is False
