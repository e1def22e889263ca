"""A tiny "domain" text for the vocabulary extension and growth tests.

Words the 300-piece sample model (`tiny_model_file`) shatters into many pieces, and a line of
characters it has never seen (Chinese), so an extension of it has both kinds of new piece.
"""

from __future__ import annotations

import pathlib

_STEMS = ("cardio", "neuro", "gastro", "hepato", "nephro", "osteo", "dermato", "angio")
_ENDINGS = ("logy", "pathy", "megaly", "scopy", "tomy", "gram", "plasty")
_WORDS = [stem + ending for stem in _STEMS for ending in _ENDINGS]
DOMAIN_LINES = [
    f"the {_WORDS[i % len(_WORDS)]} and {_WORDS[(7 * i + 3) % len(_WORDS)]} of the patient ."
    if i % 4
    else "病人 的 心脏 很好 , 医院 的 医生 说 , 手术 以后 要 休息 ."
    for i in range(400)
]


def write_domain_text(directory: pathlib.Path) -> str:
    """Writes `DOMAIN_LINES` as `directory/domain.txt`; returns its path."""
    path = directory / "domain.txt"
    path.write_text("\n".join(DOMAIN_LINES) + "\n", encoding="utf-8")
    return str(path)
