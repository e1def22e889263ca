"""Readers: WNUT-17 (real), constructed CoNLL-2003 (4 columns, IOB1, -DOCSTART-), JSONL, errors."""

from __future__ import annotations

import json

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.tagging.sentences import read_tagged_file
from tests.conftest import SHARED_DATA
from tests.finetune.conftest import write_lines

WNUT = SHARED_DATA / "wnut17"

# CoNLL-2003's released layout: word POS chunk NER, IOB1 (B- only between touching entities
# of one type), -DOCSTART- lines with a blank line after them.
CONLL2003 = [
    "-DOCSTART- -X- -X- O",
    "",
    "EU NNP B-NP I-ORG",
    "rejects VBZ B-VP O",
    "German JJ B-NP I-MISC",
    "call NN I-NP O",
    ". . O O",
    "",
    "Peter NNP B-NP I-PER",
    "Blackburn NNP I-NP I-PER",
    "",
    "-DOCSTART- -X- -X- O",
    "",
    "In IN B-PP O",
    "Paris NNP B-NP I-LOC",
    "Berlin NNP I-NP B-LOC",
    "",
]


def test_wnut17_files_read_with_every_sentence():
    train = read_tagged_file(str(WNUT / "wnut17train.conll"))
    dev = read_tagged_file(str(WNUT / "emerging.dev.conll"))
    assert (len(train), len(dev)) == (3394, 1009)
    assert train.words[0][:3] == ["@paulwalk", "It", "'s"]
    assert train.words[0][14:17] == ["Empire", "State", "Building"]
    assert train.tags[0][14:17] == ["B-location", "I-location", "I-location"]
    assert train.num_words == sum(len(tags) for tags in train.tags) == 62730
    assert {tag for sentence in train.tags for tag in sentence} >= {"B-creative-work", "O"}


def test_conll2003_four_columns_iob1_and_docstart(tmp_path):
    path = write_lines(tmp_path / "eng.train", CONLL2003)
    sentences = read_tagged_file(path, scheme="iob1")
    assert sentences.words == [
        ["EU", "rejects", "German", "call", "."],
        ["Peter", "Blackburn"],
        ["In", "Paris", "Berlin"],
    ]
    assert sentences.tags[2] == ["O", "I-LOC", "B-LOC"]
    assert sentences.lines == [3, 9, 14]
    assert sentences.where(2, 2).endswith("eng.train:16")
    chunks = read_tagged_file(path, tag_column=2)  # Any column can be the tag: chunks here.
    assert chunks.tags[0] == ["B-NP", "B-VP", "B-NP", "I-NP", "O"]
    with pytest.raises(UserError, match=r"tag 'NNP' is neither O.*eng.train:3"):
        read_tagged_file(path, tag_column=1)  # POS tags are no chunk tags.


def test_iobes_tags_and_the_bio_alias(tmp_path):
    path = write_lines(tmp_path / "iobes.txt", ["New B-LOC", "York E-LOC", "Bob S-PER", ""])
    assert read_tagged_file(path, scheme="iobes").tags == [["B-LOC", "E-LOC", "S-PER"]]
    with pytest.raises(UserError, match=r"prefix 'E' is not part of scheme iob2.*iobes.txt:2"):
        read_tagged_file(path, scheme="bio")


def test_jsonl_layout(tmp_path):
    lines = [
        json.dumps({"tokens": ["EU", "rejects"], "tags": ["B-ORG", "O"]}),
        "",
        json.dumps({"tokens": ["Peter"], "tags": ["B-PER"], "id": 7}),
    ]
    path = write_lines(tmp_path / "train.jsonl", lines)
    sentences = read_tagged_file(path)
    assert sentences.words == [["EU", "rejects"], ["Peter"]]
    assert sentences.tags == [["B-ORG", "O"], ["B-PER"]]
    assert sentences.where(1, 0).endswith("train.jsonl:3")
    unlabeled = write_lines(tmp_path / "test.jsonl", [json.dumps({"tokens": ["a", "b"]})])
    assert read_tagged_file(unlabeled, labeled=None).tags is None


def test_unlabeled_conll_file_is_read_for_prediction(tmp_path):
    path = write_lines(tmp_path / "test.txt", ["EU", "rejects", "", "Peter"])
    sentences = read_tagged_file(path, labeled=None)
    assert sentences.words == [["EU", "rejects"], ["Peter"]] and sentences.tags is None
    with pytest.raises(UserError, match=r"test.txt:1: .*|the line has 1 column"):
        read_tagged_file(path)  # Training or scoring needs the tags.


@pytest.mark.parametrize(
    "name, lines, message",
    [
        ("one_column.txt", ["EU B-ORG", "rejects", ""], r"1 column\(s\), no tag.*one_column.txt:2"),
        ("bad_tag.txt", ["EU B-ORG", "x PER", ""], r"neither O nor.*bad_tag.txt:2"),
        ("bad_prefix.txt", ["EU X-ORG", ""], r"prefix 'X'.*bad_prefix.txt:1"),
        ("empty.txt", ["", "-DOCSTART- O", ""], r"no sentences.*empty.txt"),
        (
            "bad.jsonl",
            ['{"tokens": ["a"], "tags": ["O"]}', "{oops"],
            r"not valid JSON.*bad.jsonl:2",
        ),
        (
            "count.jsonl",
            ['{"tokens": ["a", "b"], "tags": ["O"]}'],
            r"2 tokens but 1 tags.*count.jsonl:1",
        ),
        ("type.jsonl", ['{"tokens": "a b", "tags": ["O"]}'], r"'tokens' is missing.*type.jsonl:1"),
        ("list.jsonl", ["[1, 2]"], r"not a JSON object.*list.jsonl:1"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path, name, lines, message):
    path = write_lines(tmp_path / name, lines)
    with pytest.raises(UserError, match=message):
        read_tagged_file(path)


def test_unknown_tag_names_file_and_line(tmp_path):
    path = write_lines(tmp_path / "dev.txt", ["EU B-ORG", "", "Peter B-PER", "Smith I-PER", ""])
    sentences = read_tagged_file(path)
    assert sentences.tag_ids(("O", "B-ORG", "B-PER", "I-PER")) == [[1], [2, 3]]
    with pytest.raises(UserError, match=r"tag 'I-PER' is not among the training tags.*dev.txt:4"):
        sentences.tag_ids(("O", "B-ORG", "B-PER"))


def test_missing_file_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        read_tagged_file(str(tmp_path / "nope.txt"))
