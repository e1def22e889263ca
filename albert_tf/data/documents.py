"""Reading text into documents: the original ALBERT input format and WikiText raw.

The original format (ALBERT/BERT `create_pretraining_data.py`) is plain text with one
sentence per line and a blank line between documents; empty documents are dropped.

WikiText raw keeps one paragraph per line: a line ` = Title = ` between two blank lines
starts an article, ` = = Heading = = ` lines are section headings, and the text is
tokenized WikiText-style (`@-@`, `@,@`, `@.@` inside words and numbers). The converter
drops titles and headings, joins `@-@`/`@,@`/`@.@` back and splits paragraphs into
sentences after ` . `; `data/sample.txt` was made that way.

Everything streams: one document in memory at a time. Errors name the file and line.

Example:
    >>> for document in read_documents("data/sample.txt"):
    ...     print(document.source, document.line, document.sentences[0][:20])
    ...     break
    data/sample.txt 1 Senjō no Valkyria 3
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import BinaryIO

from albert_tf.errors import UserError
from albert_tf.file_patterns import expand_file_patterns

INPUT_FORMATS = ("text", "wikitext")
DECODE_ERROR_MODES = ("strict", "replace")

# ` = Title = ` (one `=` on each side); only an article title when blank lines surround it.
_WIKITEXT_TITLE = re.compile(r"^ = [^=].* = $")
# ` = = Heading = = `, ` = = = Sub = = = `: section headings inside an article.
_WIKITEXT_HEADING = re.compile(r"^ *(= ){2,}.*( =){2,} *$")
# WikiText's escapes for a hyphen inside a word and separators inside numbers.
_WIKITEXT_JOINS = ((" @-@ ", "-"), (" @,@ ", ","), (" @.@ ", "."))
# Sentence ends are not marked in WikiText: split after a free-standing period.
_WIKITEXT_SENTENCE_END = re.compile(r"(?<= \.) ")


# Opens a file for binary reading; `apache_beam.io.filesystems.FileSystems.open` also fits.
Opener = Callable[[str], BinaryIO]


def _open_local(path: str) -> BinaryIO:
    return open(path, "rb")


class InputError(UserError):
    """Bad pretraining input; the message names the file (and line) and what to do."""


@dataclasses.dataclass(frozen=True)
class Document:
    """One document: its sentences in order, and where it starts (for error messages).

    Example:
        >>> Document(sentences=("A b .", "C d ."), source="x.txt", line=1).sentences[1]
        'C d .'
    """

    sentences: tuple[str, ...]
    source: str
    line: int


def empty_file_error(path: str) -> InputError:
    return InputError(f"{path}: input file is empty; remove it from --input_file.")


def _decoded_lines(
    path: str, on_decode_error: str, opener: Opener = _open_local
) -> Iterator[tuple[int, str]]:
    """Yields (line number, line without newline) of a UTF-8 file, checking the encoding.

    Raises `InputError` on an empty file (before yielding anything).
    """
    if on_decode_error not in DECODE_ERROR_MODES:
        raise UserError(f"on_decode_error must be one of {DECODE_ERROR_MODES}.")
    replaced = 0
    line_number = 0
    with opener(path) as handle:
        for line_number, raw in enumerate(iter(handle.readline, b""), start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                if on_decode_error == "strict":
                    raise InputError(
                        f"{path}:{line_number}: not valid UTF-8 ({error.reason} at byte "
                        f"{error.start}); fix the file or pass --on_decode_error=replace."
                    ) from None
                replaced += 1
                line = raw.decode("utf-8", errors="replace")
            yield line_number, line.rstrip("\r\n")
    if line_number == 0:
        raise empty_file_error(path)
    if replaced:
        logging.warning("%s: %d lines had invalid UTF-8, replaced by U+FFFD.", path, replaced)


def read_text_documents(
    paths: Iterable[str], on_decode_error: str = "strict", opener: Opener = _open_local
) -> Iterator[Document]:
    """Streams documents from files in the original format (blank line between documents).

    Lines are stripped; documents without a non-blank line are dropped.

    Example:
        >>> next(read_text_documents(["data/sample.txt"])).line
        1
    """
    for path in paths:
        sentences: list[str] = []
        start = 0
        for line_number, line in _decoded_lines(path, on_decode_error, opener):
            line = line.strip()
            if line:
                if not sentences:
                    start = line_number
                sentences.append(line)
            elif sentences:
                yield Document(tuple(sentences), path, start)
                sentences = []
        if sentences:
            yield Document(tuple(sentences), path, start)


def split_wikitext_paragraph(paragraph: str) -> list[str]:
    """Undoes WikiText's `@-@`/`@,@`/`@.@` and splits a paragraph into sentences after ` . `.

    Example:
        >>> split_wikitext_paragraph(" It cost 1 @,@ 725 . A real @-@ time game . ")
        ['It cost 1,725 .', 'A real-time game .']
    """
    text = paragraph.strip()
    for escaped, joined in _WIKITEXT_JOINS:
        text = text.replace(escaped, joined)
    return [s for s in _WIKITEXT_SENTENCE_END.split(text) if s.strip()]


def read_wikitext_documents(
    paths: Iterable[str], on_decode_error: str = "strict", opener: Opener = _open_local
) -> Iterator[Document]:
    """Streams WikiText raw articles as documents of sentences (titles and headings dropped).

    Text before the first title forms its own document.

    Example:
        >>> docs = read_wikitext_documents(["../shared/data/wikitext-2-raw/valid.txt"])
        >>> next(docs).sentences[0][:28]
        'Homarus gammarus , known as '
    """
    for path in paths:
        sentences: list[str] = []
        start = 0
        # A title is only known once the following line is seen to be blank: look one ahead.
        previous_blank, pending_title = True, None
        for line_number, line in _decoded_lines(path, on_decode_error, opener):
            blank = not line.strip()
            if pending_title is not None:
                title_number, title_line = pending_title
                pending_title = None
                if blank:  # a real article title: a new document starts
                    if sentences:
                        yield Document(tuple(sentences), path, start)
                    sentences = []
                    previous_blank = True
                    continue
                if not sentences:  # not a title after all: an ordinary paragraph
                    start = title_number
                sentences.extend(split_wikitext_paragraph(title_line))
            if blank:
                previous_blank = True
                continue
            if previous_blank and _WIKITEXT_TITLE.match(line):
                pending_title = (line_number, line)
            elif not _WIKITEXT_HEADING.match(line):
                paragraph = split_wikitext_paragraph(line)
                if paragraph and not sentences:
                    start = line_number
                sentences.extend(paragraph)
            previous_blank = False
        if pending_title is not None:
            sentences.extend(split_wikitext_paragraph(pending_title[1]))
        if sentences:
            yield Document(tuple(sentences), path, start)


def read_file_documents(
    paths: Iterable[str],
    input_format: str = "text",
    on_decode_error: str = "strict",
    opener: Opener = _open_local,
) -> Iterator[Document]:
    """The documents of the given files in `input_format` ("text" or "wikitext"), in order.

    Example:
        >>> len(list(read_file_documents(["data/sample.txt"]))) > 10
        True
    """
    if input_format not in INPUT_FORMATS:
        raise ValueError(f"input_format must be one of {INPUT_FORMATS}, got {input_format!r}.")
    reader = read_text_documents if input_format == "text" else read_wikitext_documents
    return reader(paths, on_decode_error, opener)


def read_documents(
    patterns: str | Sequence[str], input_format: str = "text", on_decode_error: str = "strict"
) -> Iterator[Document]:
    """Streams the documents of all files matched by `patterns` (comma-separated globs).

    Args:
        patterns: comma-separated globs (or a list of them).
        input_format: "text" (one sentence per line, blank line between documents) or
            "wikitext" (WikiText raw, converted on the fly).
        on_decode_error: "strict" raises `InputError` naming file and line on invalid UTF-8;
            "replace" substitutes U+FFFD and logs a warning per file.

    Raises:
        InputError: missing or empty files, bad UTF-8 (strict), or no document at all.
    """
    if input_format not in INPUT_FORMATS:
        raise UserError(f"input_format must be one of {INPUT_FORMATS}, got {input_format!r}.")
    paths = expand_file_patterns(patterns, error_type=InputError)
    count = 0
    for document in read_file_documents(paths, input_format, on_decode_error):
        count += 1
        yield document
    if count == 0:
        raise InputError(f"No document in {paths}: the input holds only blank lines.")


def convert_wikitext(input_path: str, output_path: str, max_documents: int | None = None) -> int:
    """Writes WikiText raw as the original format (temp file, renamed); returns documents.

    Example:
        >>> convert_wikitext("../shared/data/wikitext-2-raw/train.txt", f"{tmp_dir}/s.txt", 39)
        39
    """
    temp_path = output_path + ".tmp"
    count = 0
    try:
        with open(temp_path, "w", encoding="utf-8") as handle:
            for document in read_wikitext_documents([input_path]):
                if max_documents is not None and count >= max_documents:
                    break
                if count:
                    handle.write("\n")
                handle.write("\n".join(document.sentences) + "\n")
                count += 1
        os.replace(temp_path, output_path)
    finally:
        if os.path.exists(temp_path):
            os.remove(temp_path)
    return count
