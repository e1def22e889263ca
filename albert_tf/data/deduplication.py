"""Exact deduplication of pretraining text: duplicate documents and repeated lines.

Web-scale corpora repeat whole pages and boilerplate lines (menus, notices); both are
removed the usual way, keeping the first occurrence in the stable input order (files as
listed, then documents and lines in file order):

- documents: a document whose lines equal an earlier document's lines is dropped;
- lines: a line (a sentence of the text format) seen earlier anywhere in the corpus (after
  duplicate documents are gone) is dropped; a document left without lines is dropped.

`Deduplicator` does it in one streaming pass (one 16-byte hash per distinct document or
line in memory); the Beam pipeline does the same with a GroupByKey per hash, using the same
keys (`document_key`, `line_key`) and `without_lines`, so both give the same documents.

Example:
    >>> docs = [Document(("a .", "b ."), "x", 1), Document(("a .", "b ."), "x", 4),
    ...         Document(("c .", "a ."), "x", 7)]
    >>> dedup = Deduplicator(documents=True, lines=True)
    >>> [d.sentences for d in dedup.filter(docs)]
    [('a .', 'b .'), ('c .',)]
    >>> dict(dedup.counts)
    {'duplicate_documents': 1, 'duplicate_lines': 1, 'documents_emptied_by_line_dedup': 0}
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
from collections.abc import Collection, Iterable, Iterator

from albert_tf.data.documents import Document

# Counter names, as they appear in the manifest's statistics.
DUPLICATE_DOCUMENTS = "duplicate_documents"
DUPLICATE_LINES = "duplicate_lines"
EMPTIED_DOCUMENTS = "documents_emptied_by_line_dedup"


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def document_key(document: Document) -> bytes:
    """The identity of a document's text (its lines, in order)."""
    return _digest("\n".join(document.sentences))


def line_key(line: str) -> bytes:
    """The identity of one line (sentence)."""
    return _digest(line)


def without_lines(document: Document, drop: Collection[int]) -> Document | None:
    """`document` without the lines at indices `drop`; None when nothing is left."""
    if not drop:
        return document
    kept = tuple(s for index, s in enumerate(document.sentences) if index not in drop)
    return dataclasses.replace(document, sentences=kept) if kept else None


def zero_counts(documents: bool, lines: bool) -> dict[str, int]:
    """The counters of the enabled deduplications, at zero (so the manifest always has them)."""
    names = ([DUPLICATE_DOCUMENTS] if documents else []) + (
        [DUPLICATE_LINES, EMPTIED_DOCUMENTS] if lines else []
    )
    return dict.fromkeys(names, 0)


class Deduplicator:
    """Streaming deduplication in input order; `counts` says how much was removed.

    Args:
        documents: drop exact duplicate documents.
        lines: drop lines seen earlier in the corpus.
    """

    def __init__(self, documents: bool, lines: bool):
        self.documents = documents
        self.lines = lines
        self.counts = collections.Counter(zero_counts(documents, lines))
        self._seen_documents: set[bytes] = set()
        self._seen_lines: set[bytes] = set()

    def filter(self, documents: Iterable[Document]) -> Iterator[Document]:
        for document in documents:
            if self.documents:
                key = document_key(document)
                if key in self._seen_documents:
                    self.counts[DUPLICATE_DOCUMENTS] += 1
                    continue
                self._seen_documents.add(key)
            if self.lines:
                document = self._drop_seen_lines(document)
                if document is None:
                    continue
            yield document

    def _drop_seen_lines(self, document: Document) -> Document | None:
        drop = set()
        for index, line in enumerate(document.sentences):
            key = line_key(line)
            if key in self._seen_lines:
                drop.add(index)
            else:
                self._seen_lines.add(key)
        self.counts[DUPLICATE_LINES] += len(drop)
        kept = without_lines(document, drop)
        if kept is None:
            self.counts[EMPTIED_DOCUMENTS] += 1
        return kept
