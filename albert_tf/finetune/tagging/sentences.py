"""`TaggedSentences`: the words (and tags) of a token classification file, read and checked.

Two layouts:

* CoNLL-style (`conll`): one word per line, columns separated by whitespace, the word in the
  first column and the tag in `tag_column` (default -1: the last), a blank line between
  sentences, `-DOCSTART-` lines skipped. WNUT-17 (`word<TAB>tag`) and CoNLL-2003
  (`word POS chunk NER`) both read this way; a file to predict may have the word column only.
* JSONL (`jsonl`): one JSON object per line with a `tokens` list and (labeled) a `tags` list.

Every problem (too few columns, a tag outside the scheme, unequal `tokens`/`tags`, bad JSON,
an empty file) raises `UserError` naming the file and line.

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "train.conll")
    >>> _ = open(path, "w").write("-DOCSTART- O\\n\\nEmpire B-loc\\nState I-loc\\n\\nhi O\\n")
    >>> sentences = read_tagged_file(path)
    >>> sentences.words, sentences.tags
    ([['Empire', 'State'], ['hi']], [['B-loc', 'I-loc'], ['O']])
    >>> sentences.where(0, 1).endswith("train.conll:4")  # "State" is on line 4.
    True
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Iterator

from albert_tf.config_fields import check_choice
from albert_tf.errors import UserError
from albert_tf.finetune.tagging.tag_schemes import canonical_scheme, check_tag, split_tag

FILE_FORMATS = ("auto", "conll", "jsonl")
DOCSTART = "-DOCSTART-"
_FIX_COLUMNS = "check --tag_column and that the file is CoNLL-style (word ... tag per line)"


@dataclasses.dataclass(frozen=True)
class TaggedSentences:
    """The sentences of one file.

    Attributes:
        words: the words of each sentence.
        tags: the tag of each word, or None (a file without tags, to predict).
        lines: the 1-based line of each sentence's first word (CoNLL) or of its object (JSONL).
        path: the file read.
        one_word_per_line: True for CoNLL files (word `i` of a sentence is on `lines + i`).
    """

    words: list[list[str]]
    tags: list[list[str]] | None
    lines: list[int]
    path: str
    one_word_per_line: bool = True

    def __len__(self) -> int:
        return len(self.words)

    @property
    def num_words(self) -> int:
        return sum(len(sentence) for sentence in self.words)

    def where(self, sentence: int, word: int = 0) -> str:
        """`path:line` of a word, for error messages."""
        line = self.lines[sentence] + (word if self.one_word_per_line else 0)
        return f"{self.path}:{line}"

    def take(self, count: int) -> TaggedSentences:
        """The first `count` sentences (for subsampling a large training file)."""
        return dataclasses.replace(
            self,
            words=self.words[:count],
            tags=None if self.tags is None else self.tags[:count],
            lines=self.lines[:count],
        )

    def tag_ids(self, labels: tuple[str, ...]) -> list[list[int]]:
        """Tags as ids into `labels`; UserError at the file and line for an unknown tag."""
        if self.tags is None:
            raise UserError(f"{self.path} has no tags", where=self.path, fix=_FIX_COLUMNS)
        ids = {label: index for index, label in enumerate(labels)}
        result = []
        for sentence, tags in enumerate(self.tags):
            for word, tag in enumerate(tags):
                if tag not in ids:
                    raise UserError(
                        f"tag {tag!r} is not among the training tags {list(labels)}",
                        where=self.where(sentence, word),
                        fix="fix the tag, or train on data that has it",
                    )
            result.append([ids[tag] for tag in tags])
        return result


def read_tagged_file(
    path: str,
    file_format: str = "auto",
    tag_column: int = -1,
    scheme: str = "iob2",
    labeled: bool | None = True,
) -> TaggedSentences:
    """Reads `path`; `labeled=None` reads tags when the file has them (prediction input).

    Raises:
        UserError: missing file, empty file, malformed line or tag (naming file and line).
    """
    scheme = canonical_scheme(scheme)
    check_choice("file_format", file_format, FILE_FORMATS)
    if not os.path.isfile(path):
        raise UserError("no such file", where=path, fix="check --data_dir and the file flags")
    if file_format == "auto":
        file_format = "jsonl" if path.endswith((".jsonl", ".json")) else "conll"
    if file_format == "jsonl":
        sentences = _read_jsonl(path, labeled)
    else:
        sentences = _read_conll(path, tag_column, labeled)
    if not sentences.words:
        raise UserError("no sentences (the file is empty)", where=path, fix="check the file")
    if sentences.tags is not None:
        _check_tags(sentences, scheme)
    return sentences


def _read_conll(path: str, tag_column: int, labeled: bool | None) -> TaggedSentences:
    words: list[list[str]] = []
    tags: list[list[str]] = []
    lines: list[int] = []
    current_words: list[str] = []
    current_tags: list[str] = []

    def end_sentence() -> None:
        if current_words:
            words.append(list(current_words))
            tags.append(list(current_tags))
            current_words.clear()
            current_tags.clear()

    for line_number, fields in _conll_lines(path):
        if not fields or fields[0] == DOCSTART:
            end_sentence()
            continue
        if labeled is None:  # The first word line decides: word only, or word ... tag.
            labeled = len(fields) > 1
        if not current_words:
            lines.append(line_number)
        current_words.append(fields[0])
        if labeled:
            current_tags.append(_tag_field(path, line_number, fields, tag_column))
    end_sentence()
    return TaggedSentences(words, tags if labeled else None, lines, os.fspath(path))


def _text_lines(handle, path: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of an open text file; non-UTF-8 bytes -> a UserError naming it."""
    line_number = 0
    try:
        for line_number, line in enumerate(handle, start=1):
            yield line_number, line
    except UnicodeDecodeError as error:
        raise UserError(
            f"{path}:{line_number + 1} is not UTF-8 text ({error.reason})",
            where=path,
            fix="convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
        ) from None


def _conll_lines(path: str) -> Iterator[tuple[int, list[str]]]:
    with open(path, encoding="utf-8-sig") as handle:
        for line_number, line in _text_lines(handle, path):
            yield line_number, line.split()


def _tag_field(path: str, line_number: int, fields: list[str], tag_column: int) -> str:
    position = tag_column if tag_column >= 0 else len(fields) + tag_column
    if len(fields) < 2 or not 0 < position < len(fields):
        raise UserError(
            f"the line has {len(fields)} column(s), no tag in column {tag_column}",
            where=f"{path}:{line_number}",
            fix=_FIX_COLUMNS,
        )
    return fields[position]


def _read_jsonl(path: str, labeled: bool | None) -> TaggedSentences:
    words: list[list[str]] = []
    tags: list[list[str]] = []
    lines: list[int] = []
    with open(path, encoding="utf-8-sig") as handle:
        for line_number, line in _text_lines(handle, path):
            if not line.strip():
                continue
            where = f"{path}:{line_number}"
            record = _json_object(line, where)
            if labeled is None:
                labeled = "tags" in record
            tokens = _string_list(record, "tokens", where)
            if labeled:
                sentence_tags = _string_list(record, "tags", where)
                if len(sentence_tags) != len(tokens):
                    raise UserError(
                        f"{len(tokens)} tokens but {len(sentence_tags)} tags",
                        where=where,
                        fix="give one tag per token",
                    )
            if not tokens:
                continue
            words.append(tokens)
            lines.append(line_number)
            if labeled:
                tags.append(sentence_tags)
    return TaggedSentences(words, tags if labeled else None, lines, os.fspath(path), False)


def _json_object(line: str, where: str) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise UserError(
            f"not valid JSON ({error.msg})", where=where, fix="one object a line"
        ) from None
    if not isinstance(record, dict):
        raise UserError(
            "not a JSON object", where=where, fix='use {"tokens": [...], "tags": [...]}'
        )
    return record


def _string_list(record: dict, key: str, where: str) -> list[str]:
    value = record.get(key)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise UserError(
            f"field {key!r} is missing or not a list of strings",
            where=where,
            fix='use {"tokens": ["EU", "rejects"], "tags": ["B-ORG", "O"]}',
        )
    return value


def _check_tags(sentences: TaggedSentences, scheme: str) -> None:
    """Every tag must belong to the scheme; IOB2 continuations without a start are counted."""
    unstarted = []
    for sentence, tags in enumerate(sentences.tags):
        previous = "O"
        for word, tag in enumerate(tags):
            problem = check_tag(tag, scheme)
            if problem:
                raise UserError(
                    problem,
                    where=sentences.where(sentence, word),
                    fix="check --tag_scheme (iob1, iob2/bio, iobes) and --tag_column",
                )
            prefix, entity_type = split_tag(tag)
            if scheme == "iob2" and prefix == "I" and split_tag(previous)[1] != entity_type:
                unstarted.append(sentences.where(sentence, word))
            previous = tag
    if unstarted:
        # conlleval scores such a tag as a chunk start; IOB1 files look like this everywhere.
        logging.warning(
            "%s: %d I- tag(s) start a chunk (first at %s); is the file IOB1 (--tag_scheme=iob1)?",
            sentences.path,
            len(unstarted),
            unstarted[0],
        )
