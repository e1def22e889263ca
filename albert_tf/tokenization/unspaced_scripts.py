"""Scripts written without spaces between words (Chinese, Japanese, Thai, ...).

Their text has no "▁" word boundary inside a sentence, so what is a word there needs a rule
of its own: whole-word masking takes a segmenter's words or single characters
(`albert_tf.data.word_units`), character-level tagging files hold one character a line.
The ranges are what remains of such text after ALBERT's normalization (NFKD keeps CJK
ideographs and kana; full-width forms become ASCII).

Example:
    >>> has_unspaced("Senjō no Valkyria"), has_unspaced("戦場のヴァルキュリア")
    (False, True)
    >>> set_apart_cjk("ALBERT模型", "|")
    'ALBERT|模||型|'
    >>> unspaced(code_points("a中。")).tolist()
    [False, True, True]
"""

from __future__ import annotations

import re

import numpy as np

# (first, last) code points. CJK: each character a unit of meaning (Chinese BERT's vocabulary
# gives each ideograph a piece of its own); the Southeast Asian scripts' letters are not.
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x2FF0, 0x30FF),  # ideographic description, CJK symbols and punctuation, kana
    (0x3100, 0x312F),  # Bopomofo
    (0x3190, 0x31FF),  # Kanbun, Bopomofo extended, CJK strokes, katakana extensions
    (0x3200, 0x4DBF),  # enclosed CJK, CJK compatibility, CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0x20000, 0x323AF),  # CJK extensions B-H, compatibility supplement
)
UNSPACED_RANGES: tuple[tuple[int, int], ...] = tuple(
    sorted(
        CJK_RANGES
        + (
            (0x0E00, 0x0EFF),  # Thai, Lao
            (0x1000, 0x109F),  # Myanmar
            (0x1780, 0x17FF),  # Khmer
            (0xFF00, 0xFFEF),  # half-width and full-width forms
        )
    )
)
_PATTERN = re.compile(
    "[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in UNSPACED_RANGES) + "]"
)
_CJK_PATTERN = re.compile(
    "([" + "".join(f"{chr(low)}-{chr(high)}" for low, high in CJK_RANGES) + "])"
)
_EDGES = np.array([edge for low, high in UNSPACED_RANGES for edge in (low, high + 1)])


def has_unspaced(text: str) -> bool:
    """Whether `text` holds a character of a script written without spaces."""
    return _PATTERN.search(text) is not None


def set_apart_cjk(text: str, delimiter: str) -> str:
    """`text` with `delimiter` on both sides of each CJK character (`CJK_RANGES`)."""
    return _CJK_PATTERN.sub(delimiter + r"\1" + delimiter, text)


def cjk_count(text: str) -> int:
    """How many CJK characters (`CJK_RANGES`) `text` holds."""
    return len(_CJK_PATTERN.findall(text))


def unspaced(codes: np.ndarray) -> np.ndarray:
    """Bool per code point: it belongs to `UNSPACED_RANGES`."""
    return np.searchsorted(_EDGES, codes, side="right") % 2 == 1


def code_points(text: str) -> np.ndarray:
    """Int64 code points of `text`."""
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
