"""Small data for the docs test: `../shared/data` cut to tiny slices, honestly.

The docs' commands read the datasets in `../shared/data` (WikiText-2, GLUE, SQuAD, ...), which
take minutes to hours to train on. The docs test (tests/test_docs_commands.py) runs them on a
mirror of that folder in which

* every file over `SLICE_BYTES` (`CORPUS_SLICE_BYTES` in the pretraining corpora: enough text
  for the docs' 8000-piece vocabularies) holds only its first records, cut at a record
  boundary: lines
  (at a blank line where the file separates its records, sentences or documents by blank
  lines, as CoNLL, People's Daily and WikiText do), CSV rows (quoted newlines kept), or SQuAD
  paragraphs (the first articles' first paragraphs, every question of those);
* every folder of more than `FOLDER_FILES` files keeps its first files by name (RACE);
* the rest are links to the real files.

The format of each file is unchanged: what reads the slice reads the real file.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pathlib

SLICE_BYTES = 16_000
# The pretraining corpora: SentencePiece needs ~500 KB of WikiText for 8000 pieces, ~200 KB
# of Chinese text (docs/chinese/prepare_text.py joins both Chinese datasets).
CORPUS_SLICE_BYTES = {"wikitext-2-raw": 600_000, "chinese": 250_000}
FOLDER_FILES = 16


def _line_slice(text: str, size_limit: int) -> str:
    """The lines of `text` up to `size_limit` bytes, to the end of the record under way (the
    next blank line) where the file has blank lines between its records."""
    lines = text.splitlines(keepends=True)
    blank_separated = any(not line.strip() for line in lines[:2000])
    kept, size = [], 0
    for line in lines:
        if size >= size_limit and (not blank_separated or not line.strip()):
            break
        kept.append(line)
        size += len(line.encode("utf-8"))
    return "".join(kept)


def _csv_slice(text: str, size_limit: int) -> str:
    """The header and rows of the CSV `text` up to `size_limit`, quoted newlines kept."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in csv.reader(io.StringIO(text)):
        if out.tell() >= size_limit:
            break
        writer.writerow(row)
    return out.getvalue()


def _squad_slice(text: str, size_limit: int) -> str:
    """The SQuAD JSON `text` with its first paragraphs (every question of each) up to
    `size_limit`."""
    dataset = json.loads(text)
    articles, size = [], 0
    for article in dataset["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            if size >= size_limit:
                break
            paragraphs.append(paragraph)
            size += len(json.dumps(paragraph))
        if paragraphs:
            articles.append({**article, "paragraphs": paragraphs})
    return json.dumps({**dataset, "data": articles})


def sliced(path: pathlib.Path, size_limit: int) -> str:
    """The first records of the file `path` (of about `size_limit` bytes), in its format."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return _squad_slice(text, size_limit)
    if path.suffix == ".csv":
        return _csv_slice(text, size_limit)
    return _line_slice(text, size_limit)


def mirror(source: pathlib.Path, target: pathlib.Path, size_limit: int = SLICE_BYTES) -> None:
    """Makes `target` a copy of the folder `source` (`../shared/data`) with big files and
    folders cut (above)."""
    target.mkdir(parents=True, exist_ok=True)
    entries = sorted(source.iterdir())
    files = [entry for entry in entries if entry.is_file()]
    if len(files) > FOLDER_FILES:
        # Documents named by id (RACE): keep the first ones, and the folder's SOURCE.md.
        kept = set(files[:FOLDER_FILES]) | {entry for entry in files if entry.suffix == ".md"}
        entries = [entry for entry in entries if entry.is_dir() or entry in kept]
    for entry in entries:
        if entry.is_dir():
            limit = CORPUS_SLICE_BYTES.get(entry.name, size_limit)
            mirror(entry, target / entry.name, limit)
        elif entry.stat().st_size > size_limit:
            (target / entry.name).write_text(sliced(entry, size_limit), encoding="utf-8")
        else:
            os.symlink(entry, target / entry.name)
