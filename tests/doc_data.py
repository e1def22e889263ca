"""Small data for the docs test: `../shared/data` cut to tiny slices, honestly.

The docs' commands read the datasets in `../shared/data` (WikiText-2, GLUE, SQuAD, ...), which
take minutes to hours to train on. The docs test (tests/test_docs_commands.py) runs them on a
mirror of that folder in which

* every file over `SLICE_BYTES` holds only its first records, cut at a record boundary: lines
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

SLICE_BYTES = 32_000
FOLDER_FILES = 16


def _line_slice(text: str) -> str:
    """The lines of `text` up to `SLICE_BYTES`, to the end of the record under way (the next
    blank line) where the file has blank lines between its records."""
    lines = text.splitlines(keepends=True)
    blank_separated = any(not line.strip() for line in lines[:2000])
    kept, size = [], 0
    for line in lines:
        if size >= SLICE_BYTES and (not blank_separated or not line.strip()):
            break
        kept.append(line)
        size += len(line.encode("utf-8"))
    return "".join(kept)


def _csv_slice(text: str) -> str:
    """The header and rows of the CSV `text` up to `SLICE_BYTES`, quoted newlines kept."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in csv.reader(io.StringIO(text)):
        if out.tell() >= SLICE_BYTES:
            break
        writer.writerow(row)
    return out.getvalue()


def _squad_slice(text: str) -> str:
    """The SQuAD JSON `text` with its first paragraphs (every question of each) up to
    `SLICE_BYTES`."""
    dataset = json.loads(text)
    articles, size = [], 0
    for article in dataset["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            if size >= SLICE_BYTES:
                break
            paragraphs.append(paragraph)
            size += len(json.dumps(paragraph))
        if paragraphs:
            articles.append({**article, "paragraphs": paragraphs})
    return json.dumps({**dataset, "data": articles})


def sliced(path: pathlib.Path) -> str:
    """The first records of the file `path` (over `SLICE_BYTES`), in its own format."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return _squad_slice(text)
    if path.suffix == ".csv":
        return _csv_slice(text)
    return _line_slice(text)


def mirror(source: pathlib.Path, target: pathlib.Path) -> None:
    """Makes `target` a copy of the folder `source` with big files and folders cut (above)."""
    target.mkdir(parents=True, exist_ok=True)
    entries = sorted(source.iterdir())
    files = [entry for entry in entries if entry.is_file()]
    if len(files) > FOLDER_FILES:
        # Documents named by id (RACE): keep the first ones, and the folder's SOURCE.md.
        kept = set(files[:FOLDER_FILES]) | {entry for entry in files if entry.suffix == ".md"}
        entries = [entry for entry in entries if entry.is_dir() or entry in kept]
    for entry in entries:
        if entry.is_dir():
            mirror(entry, target / entry.name)
        elif entry.stat().st_size > SLICE_BYTES:
            (target / entry.name).write_text(sliced(entry), encoding="utf-8")
        else:
            os.symlink(entry, target / entry.name)
