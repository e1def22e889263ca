"""Multiple-choice readers: RACE layout, generic JSONL / CSV, each error naming file and line."""

from __future__ import annotations

import json

import pytest

from albert_tf.finetune.multiple_choice.examples import (
    GenericColumns,
    read_generic,
    read_race,
    split_by_group,
)
from tests.conftest import SHARED_DATA
from tests.finetune.multiple_choice.conftest import race_article

RACE_PLUS = SHARED_DATA / "race_plus" / "dev"
COSMOS = SHARED_DATA / "cosmosqa" / "valid.csv"


def write(path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def article_file(tmp_path, name="a1", **changes) -> str:
    data = race_article(
        "the text .", [("q1 _ ?", ["w", "x", "y", "z"], "B"), ("q2", ["u", "v"], "A")], name
    )
    data.update(changes)
    return write(tmp_path / "high" / f"{name}.json", json.dumps(data))


def test_race_article_questions_levels_and_ids(tmp_path):
    article_file(tmp_path)
    examples = read_race(str(tmp_path))
    assert [e.id for e in examples] == ["a1-0", "a1-1"]
    assert [e.label for e in examples] == [1, 0]
    assert examples[1].options == ("u", "v") and examples[0].level == "high"
    assert {e.group for e in examples} == {"a1"}


def test_race_plus_reads_with_fewer_options():
    examples = read_race(str(RACE_PLUS))
    assert len(examples) == 561 and len({e.group for e in examples}) == 167
    counts = {n: sum(len(e.options) == n for e in examples) for n in (2, 3, 4)}
    assert counts == {2: 1, 3: 21, 4: 539}
    assert all(e.options[e.label].strip() for e in examples)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"options": [["w"], ["u", "v"]]}, r"wrong number of options: 1 \(allowed: 2-4\)"),
        ({"options": [list("abcde"), ["u", "v"]]}, r"wrong number of options: 5"),
        ({"answers": ["B", "C"]}, r"answer 'C' is out of range: the question has 2 options"),
        ({"answers": ["B", "1"]}, r"answer '1' is not a letter A-B"),
        ({"answers": ["B"]}, r"2 questions, 2 options, 1 answers"),
        ({"options": [["w", "", "y", "z"], ["u", "v"]]}, r"the answer \(option 1\) is an empty"),
    ],
)
def test_race_errors_name_file_and_question(tmp_path, changes, message):
    path = article_file(tmp_path, **changes)
    with pytest.raises(ValueError, match=message) as error:
        read_race(path)
    assert f"{path} (id a1" in str(error.value)


def test_race_missing_fields(tmp_path):
    path = write(tmp_path / "a1.json", json.dumps({"article": "x", "options": [], "id": "a1"}))
    with pytest.raises(ValueError, match=r"missing field questions, answers, .*a1.json"):
        read_race(path)
    with pytest.raises(ValueError, match=r"missing field questions, .*a1.json"):
        read_race(path, labeled=False)  # Unlabeled data may lack only `answers`.


def test_race_invalid_json_names_the_line(tmp_path):
    path = write(tmp_path / "bad.json", '{"article": "x",\n"questions": [\n}')
    with pytest.raises(ValueError, match=r"invalid JSON .*bad.json:3"):
        read_race(path)
    with pytest.raises(ValueError, match="no RACE .json files"):
        read_race(str(tmp_path / "missing"))


def test_generic_csv_cosmos_qa():
    examples = read_generic(str(COSMOS))
    assert len(examples) == 2985
    assert all(len(e.options) == 4 for e in examples)
    assert examples[0].label == 1 and examples[0].id.startswith("3BFF0DJK")
    assert examples[0].options[1] == "He wants to get married to a different person ."


def test_generic_jsonl_with_letters_and_lists(tmp_path):
    lines = [
        {"context": "c1", "question": "q1", "options": ["a", "b", "c"], "label": "C"},
        {"context": "c2", "question": "q2", "options": ["a", "b"], "label": 0, "id": "x7"},
    ]
    path = write(tmp_path / "d.jsonl", "\n".join(json.dumps(line) for line in lines) + "\n\n")
    examples = read_generic(path)
    assert [(e.id, e.label, len(e.options)) for e in examples] == [("1", 2, 3), ("x7", 0, 2)]
    unlabeled = read_generic(path, labeled=False)
    assert unlabeled[0].label is None


def test_generic_named_option_columns(tmp_path):
    path = write(tmp_path / "d.tsv", "passage\tq\tfirst\tsecond\tgold\np\tq?\tyes\tno\tB\n")
    columns = GenericColumns(
        context="passage", question="q", option_columns=("first", "second"), label="gold"
    )
    (example,) = read_generic(path, columns)
    assert (example.context, example.options, example.label) == ("p", ("yes", "no"), 1)


CSV_HEADER = "id,context,question,answer0,answer1,answer2,label\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (CSV_HEADER + "1,c,q,a,b,c,0\n2,c,q,a,b,c,3\n", r"label 3 is out of range.*d.csv:3"),
        (CSV_HEADER + "1,c,q,a,b,c,0\n2,c,q,a,b,c,D\n", r"answer 'D' is out of range.*d.csv:3"),
        (CSV_HEADER + "1,c,q,a,b,c\n", r"6 fields, the header has 7.*d.csv:2"),
        ("id,context,question,label\n1,c,q,0\n", r"no options.*d.csv:2"),
        ("id,context,answer0,answer1,label\n1,c,a,b,0\n", r"missing field 'question'.*d.csv:2"),
        ("id,context,question,answer0,label\n1,c,q,a,0\n", r"wrong number of options: 1.*d.csv:2"),
        ("", r"empty file"),
    ],
)
def test_generic_csv_errors_name_file_and_line(tmp_path, text, message):
    path = write(tmp_path / "d.csv", text)
    with pytest.raises(ValueError, match=message):
        read_generic(path)


def test_generic_jsonl_errors_name_the_line(tmp_path):
    good = json.dumps({"context": "c", "question": "q", "options": ["a", "b"], "label": 1})
    path = write(tmp_path / "d.jsonl", good + "\n{oops\n")
    with pytest.raises(ValueError, match=r"invalid JSON .*d.jsonl:2"):
        read_generic(path)
    path = write(tmp_path / "e.jsonl", good + "\n" + json.dumps({"context": "c"}) + "\n")
    with pytest.raises(ValueError, match=r"no options.*e.jsonl:2"):
        read_generic(path)
    with pytest.raises(ValueError, match="unknown multiple-choice file type '.txt'"):
        read_generic(write(tmp_path / "d.txt", good))


def test_split_by_group_keeps_articles_together():
    examples = read_race(str(RACE_PLUS))
    kept, held_out = split_by_group(examples, 0.2)
    assert not {e.group for e in kept} & {e.group for e in held_out}
    assert 0.1 < len({e.group for e in held_out}) / 167 < 0.3
    assert split_by_group(list(reversed(examples)), 0.2)[1] == list(reversed(held_out))
