"""Reading documents: original format, WikiText conversion, bad input."""

from __future__ import annotations

import pytest

from albert_tf.data.documents import (
    InputError,
    convert_wikitext,
    read_documents,
    split_wikitext_paragraph,
)
from tests.conftest import SHARED_DATA


def test_text_format_drops_empty_documents_and_strips(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("\n\n s1 \ns2\n\n\n\nt1\n  \n\n", encoding="utf-8")
    documents = list(read_documents(str(path)))
    assert [d.sentences for d in documents] == [("s1", "s2"), ("t1",)]
    assert [d.line for d in documents] == [3, 8]


def test_comma_separated_globs_keep_order(tmp_path):
    for name in ("b1.txt", "b2.txt", "a.txt"):
        (tmp_path / name).write_text(f"{name}\n", encoding="utf-8")
    pattern = f"{tmp_path}/b*.txt,{tmp_path}/a.txt"
    assert [d.sentences[0] for d in read_documents(pattern)] == ["b1.txt", "b2.txt", "a.txt"]


def test_wikitext_conversion_reproduces_sample(tmp_path, sample_text_path):
    output = tmp_path / "sample.txt"
    assert (
        convert_wikitext(str(SHARED_DATA / "wikitext-2-raw" / "train.txt"), str(output), 39) == 39
    )
    assert output.read_bytes() == sample_text_path.read_bytes()


def test_wikitext_titles_headings_and_false_titles(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text(
        " \n = First = \n \n A b . C 1 @,@ 000 d . \n \n = = Part = = \n \n"
        " Note : x \n = Not ; title = \n \n = Second = \n \n E real @-@ time 2 @.@ 5 . \n \n",
        encoding="utf-8",
    )
    documents = list(read_documents(str(path), input_format="wikitext"))
    assert [d.sentences for d in documents] == [
        ("A b .", "C 1,000 d .", "Note : x", "= Not ; title ="),
        ("E real-time 2.5 .",),
    ]


def test_split_paragraph():
    assert split_wikitext_paragraph(' He said " Go . " Then . ') == ['He said " Go .', '" Then .']


def test_missing_input_names_pattern(tmp_path):
    with pytest.raises(InputError, match="matches no file"):
        list(read_documents(str(tmp_path / "nope*.txt")))


def test_empty_file_is_an_error(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="empty.txt: input file is empty"):
        list(read_documents(str(path)))


def test_blank_only_input_has_no_document(tmp_path):
    path = tmp_path / "blank.txt"
    path.write_text("\n  \n\n", encoding="utf-8")
    with pytest.raises(InputError, match="No document"):
        list(read_documents(str(path)))


def test_invalid_utf8_strict_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"good\nalso good\nbad \xff byte\n")
    with pytest.raises(InputError, match=r"bad.txt:3: not valid UTF-8"):
        list(read_documents(str(path)))


def test_invalid_utf8_replace(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"bad \xff byte\n")
    documents = list(read_documents(str(path), on_decode_error="replace"))
    assert documents[0].sentences == ("bad \ufffd byte",)
