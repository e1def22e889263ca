"""Writes the Chinese pretraining text of docs/chinese.md from ../shared/data/chinese.

    python docs/chinese/prepare_text.py ../shared/data/chinese OUT_DIR

OUT_DIR/train.txt and OUT_DIR/eval.txt are in the data builder's format (one sentence a line,
a blank line between documents):

* People's Daily NER (train.txt / dev.txt): the characters of each sentence joined; the
  sentences are in article order without article breaks, so every 10 consecutive
  sentences make a document;
* ChnSentiCorp (train.tsv / dev.tsv): each review is a document, split into sentences after
  。！？ (and at its own line breaks).

train.txt: People's Daily train + ChnSentiCorp train; eval.txt: their dev splits (held out
from pretraining; the fine-tuning dev scores use the same dev files).
"""

from __future__ import annotations

import csv
import os
import re
import sys

SENTENCES_PER_DOCUMENT = 10
_SENTENCE_END = re.compile(r"(?<=[。！？])")


def people_daily_sentences(path: str) -> list[str]:
    """The sentences of a character-per-line CoNLL file, characters joined."""
    sentences, current = [], []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if fields:
                current.append(fields[0])
            elif current:
                sentences.append("".join(current))
                current = []
    if current:
        sentences.append("".join(current))
    return sentences


def review_documents(path: str) -> list[list[str]]:
    """Each review of a ChnSentiCorp TSV file as its sentences."""
    documents = []
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            text = row["text_a"] or ""
            sentences = [
                part.strip()
                for line in text.splitlines()
                for part in _SENTENCE_END.split(line)
                if part.strip()
            ]
            if sentences:
                documents.append(sentences)
    return documents


def write_documents(path: str, documents: list[list[str]]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n\n".join("\n".join(document) for document in documents) + "\n")


def main(data_dir: str, output_dir: str) -> None:
    os.makedirs(output_dir, exist_ok=True)
    for split, (ner_file, review_file) in {
        "train": ("train.txt", "train.tsv"),
        "eval": ("dev.txt", "dev.tsv"),
    }.items():
        sentences = people_daily_sentences(os.path.join(data_dir, "peopledaily_ner", ner_file))
        documents = [
            sentences[start : start + SENTENCES_PER_DOCUMENT]
            for start in range(0, len(sentences), SENTENCES_PER_DOCUMENT)
        ]
        documents += review_documents(os.path.join(data_dir, "chnsenticorp", review_file))
        write_documents(os.path.join(output_dir, f"{split}.txt"), documents)
        characters = sum(len(sentence) for document in documents for sentence in document)
        print(f"{split}.txt: {len(documents)} documents, {characters} characters")


if __name__ == "__main__":
    main(*sys.argv[1:3])
