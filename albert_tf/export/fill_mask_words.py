"""`whole_word_candidates`: what a person reads in `fill_mask`'s candidate pieces."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

# SentencePiece's word-boundary marker, at the start of a piece that starts a word.
WORD_BOUNDARY = "\u2581"


def _is_word(text: str) -> bool:
    # A word has a letter or a digit; "," or "." alone is punctuation, not a word.
    return any(unicodedata.category(c)[0] in "LN" for c in text)


def whole_word_candidates(
    pieces: Iterable[str | bytes], scores: Iterable[float], count: int = 5
) -> list[tuple[str, float]]:
    """The best `count` candidates of one `[MASK]` that are whole words, best first.

    `fill_mask` ranks SentencePiece pieces; the ones that start a word carry the
    boundary marker `▁`. Kept: pieces that start a word and hold a letter or a digit,
    shown without the marker. Skipped: the marker alone, punctuation, continuation
    pieces such as `s` (the end of a longer word) and padding (`""`).

    Example:
    >>> pieces = ["▁", "s", "▁,", "▁released", "▁sold", "."]
    >>> whole_word_candidates(pieces, [0.1, 0.05, 0.05, 0.04, 0.03, 0.02])
    [('released', 0.04), ('sold', 0.03)]
    """
    words = []
    for piece, score in zip(pieces, scores, strict=True):
        text = piece.decode("utf-8") if isinstance(piece, bytes) else piece
        if text.startswith(WORD_BOUNDARY) and _is_word(text[1:]):
            words.append((text[1:], float(score)))
    return words[:count]
