"""Streaming deduplication: first occurrence kept in input order, counts."""

from __future__ import annotations

from albert_tf.data.deduplication import Deduplicator, document_key, line_key, without_lines
from albert_tf.data.documents import Document


def _docs(*texts: str) -> list[Document]:
    return [
        Document(tuple(text.split("|")), "corpus.txt", 3 * i + 1) for i, text in enumerate(texts)
    ]


def test_documents_then_lines_first_occurrence_kept():
    documents = _docs("a|b", "c|a|c", "a|b", "b|d", "a")
    dedup = Deduplicator(documents=True, lines=True)
    kept = list(dedup.filter(documents))
    assert [d.sentences for d in kept] == [("a", "b"), ("c",), ("d",)]
    assert [d.line for d in kept] == [1, 4, 10]  # where each kept document started
    assert dict(dedup.counts) == {
        "duplicate_documents": 1,  # the second "a|b"
        "duplicate_lines": 4,  # a and the second c of doc 2, b of doc 4, a of doc 5
        "documents_emptied_by_line_dedup": 1,  # "a"
    }


def test_each_option_alone_and_off():
    documents = _docs("a|b", "a|b", "b|c")
    only_documents = Deduplicator(documents=True, lines=False)
    assert [d.sentences for d in only_documents.filter(documents)] == [("a", "b"), ("b", "c")]
    assert dict(only_documents.counts) == {"duplicate_documents": 1}
    only_lines = Deduplicator(documents=False, lines=True)
    assert [d.sentences for d in only_lines.filter(documents)] == [("a", "b"), ("c",)]
    assert only_lines.counts["documents_emptied_by_line_dedup"] == 1
    assert only_lines.counts["duplicate_lines"] == 3


def test_keys_and_without_lines():
    assert document_key(_docs("a|b")[0]) != document_key(_docs("ab")[0])
    assert document_key(_docs("a|b")[0]) != document_key(_docs("b|a")[0])
    assert line_key("a") == line_key("a") != line_key("a ")
    document = _docs("a|b|c")[0]
    assert without_lines(document, set()) is document
    assert without_lines(document, {0, 2}).sentences == ("b",)
    assert without_lines(document, {0, 1, 2}) is None
