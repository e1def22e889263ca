"""Toy word segmenters for `--word_segmenter=tests.data.segmenters:NAME` (importable by name in
worker processes and Beam workers, as a user's own segmenter is)."""

from __future__ import annotations


def pairs(text: str) -> list[str]:
    """Every two characters make a word (spaces are left out)."""
    compact = "".join(text.split())
    return [compact[index : index + 2] for index in range(0, len(compact), 2)]


def drops_last_character(text: str) -> list[str]:
    """Words that miss the text's last character: never covers a text."""
    return list(text[:-1])


def drops_on_rare_character(text: str) -> list[str]:
    """Covers the text unless it holds 藏 (as a segmenter that fails on some input would)."""
    return [char for char in text if char != "藏"]
