"""`compare_segmentations`: what appending pieces to a SentencePiece model did to some text.

Measured on normalized lines, encoded by the old and the extended model:

* `pieces_per_word` (words: whitespace-separated) and `pieces_per_character` (non-space
  characters: for scripts written without spaces, e.g. Chinese) before and after;
* `unknown_share`: the share of pieces that are `<unk>`, before and after;
* `words_unchanged`: the share of words whose ids are the same after as before. A word is the
  pieces from one that starts with `▁` to the next such piece; both models cut a line at the
  same `▁`s, since no piece holds a `▁` after its first character;
* `changed_without_new_piece`: changed words whose new ids hold no new piece. SentencePiece's
  Viterbi keeps the old path unless a path through a new piece scores higher (the new pieces'
  scores stay within the old range, see vocabulary_extension.py), so this is 0: the number
  is reported so that a run shows it rather than assumes it.

Illustration (not run):
    compare_segmentations(old_processor, new_processor, ["the cardiology ward"], 30000)
    {'lines': 1, 'words': 3, ..., 'words_unchanged': 0.6667, 'changed_without_new_piece': 0}
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sentencepiece as spm

WORD_START = "\u2581"


def _word_starts(processor: spm.SentencePieceProcessor) -> np.ndarray:
    return np.array(
        [
            processor.id_to_piece(i).startswith(WORD_START)
            for i in range(processor.get_piece_size())
        ],
        dtype=bool,
    )


def _words(ids: list[int], starts: np.ndarray) -> list[tuple[int, ...]]:
    words: list[list[int]] = []
    for piece_id in ids:
        if starts[piece_id] or not words:
            words.append([])
        words[-1].append(piece_id)
    return [tuple(word) for word in words]


def compare_segmentations(
    old: spm.SentencePieceProcessor,
    new: spm.SentencePieceProcessor,
    lines: Sequence[str],
    old_size: int,
    num_threads: int = 2,
) -> dict[str, float | int]:
    """Segmentation figures of `lines` (normalized text) under `old` and `new`; see above.

    `old_size` is the number of old pieces: ids from it on are the appended ones.
    """
    old_ids = old.encode(list(lines), num_threads=num_threads)
    new_ids = new.encode(list(lines), num_threads=num_threads)
    old_starts, new_starts = _word_starts(old), _word_starts(new)
    unk = old.unk_id()
    words = sum(len(line.split()) for line in lines)
    characters = sum(len("".join(line.split())) for line in lines)
    counts = dict(old_pieces=0, new_pieces=0, old_unknown=0, new_unknown=0)
    segments = unchanged = without_new = 0
    for before, after in zip(old_ids, new_ids, strict=True):
        counts["old_pieces"] += len(before)
        counts["new_pieces"] += len(after)
        counts["old_unknown"] += before.count(unk)
        counts["new_unknown"] += after.count(unk)
        old_words, new_words = _words(before, old_starts), _words(after, new_starts)
        if len(old_words) != len(new_words):  # Not cut alike: every word counts as changed.
            segments += len(old_words)
            without_new += int(max(after, default=0) < old_size and before != after)
            continue
        for old_word, new_word in zip(old_words, new_words, strict=True):
            segments += 1
            if old_word == new_word:
                unchanged += 1
            elif max(new_word) < old_size:
                without_new += 1

    def ratio(numerator: float, denominator: float) -> float:
        return round(numerator / denominator, 4) if denominator else 0.0

    return {
        "lines": len(lines),
        "words": words,
        "characters": characters,
        "pieces_per_word": {
            "before": ratio(counts["old_pieces"], words),
            "after": ratio(counts["new_pieces"], words),
        },
        "pieces_per_character": {
            "before": ratio(counts["old_pieces"], characters),
            "after": ratio(counts["new_pieces"], characters),
        },
        "unknown_share": {
            "before": ratio(counts["old_unknown"], counts["old_pieces"]),
            "after": ratio(counts["new_unknown"], counts["new_pieces"]),
        },
        "words_unchanged": ratio(unchanged, segments),
        "changed_without_new_piece": without_new,
    }


def report_table(figures: dict[str, dict]) -> str:
    """`compare_segmentations` results by text name, as an aligned before -> after table."""
    header = ("text", "pieces/word", "pieces/character", "<unk> share", "words unchanged")
    rows = [header]
    for name, values in figures.items():
        rows.append(
            (
                name,
                *(
                    f"{values[key]['before']:.3f} -> {values[key]['after']:.3f}"
                    for key in ("pieces_per_word", "pieces_per_character", "unknown_share")
                ),
                f"{values['words_unchanged']:.1%}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows)
    return "\n".join(line.rstrip() for line in lines)
