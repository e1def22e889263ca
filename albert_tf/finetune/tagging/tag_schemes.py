"""Tag schemes of token classification: IOB1, IOB2 (BIO) and IOBES.

A tag is `O` or `<prefix>-<type>` (e.g. `B-PER`; the type may itself contain dashes, as
`B-creative-work`). Schemes differ in which prefixes exist and where `B-` goes:

* IOB1 (CoNLL-2003's released files): `I-` inside a chunk, `B-` only to start a chunk right
  after another chunk of the same type.
* IOB2 / BIO: every chunk starts with `B-`.
* IOBES: `S-` single-word chunks, `B-` ... `E-` longer ones.

Scoring (`conlleval`) reads all three the same way, as conlleval.pl does; the scheme says
which tags a file may hold, so a wrong `--tag_scheme` or a typo fails at the file and line.

Example:
    >>> split_tag("B-creative-work")
    ('B', 'creative-work')
    >>> split_tag("O")
    ('O', '')
    >>> check_tag("E-PER", "iob2")
    "prefix 'E' is not part of scheme iob2 (allowed: B, I, O)"
"""

from __future__ import annotations

from albert_tf.config_fields import check_choice

SCHEMES = ("iob1", "iob2", "iobes")
# "bio" is another name of IOB2.
SCHEME_ALIASES = {"bio": "iob2"}
SCHEME_NAMES = (*SCHEMES, *SCHEME_ALIASES)  # What users may write.
_PREFIXES = {"iob1": ("B", "I"), "iob2": ("B", "I"), "iobes": ("B", "I", "E", "S")}


def canonical_scheme(name: str) -> str:
    """The scheme's name in `SCHEMES` ("BIO" -> "iob2"); a `UserError` for an unknown one."""
    key = name.lower()
    check_choice("tag_scheme", key, SCHEME_NAMES)
    return SCHEME_ALIASES.get(key, key)


def split_tag(tag: str) -> tuple[str, str]:
    """(prefix, type) as conlleval splits a tag: at the first dash; `O` has type ""."""
    prefix, dash, entity_type = tag.partition("-")
    return (prefix, entity_type) if dash else (tag, "")


def check_tag(tag: str, scheme: str) -> str | None:
    """What is wrong with `tag` under `scheme`, or None when it is a valid tag."""
    if tag == "O":
        return None
    prefix, entity_type = split_tag(tag)
    allowed = _PREFIXES[scheme]
    if not entity_type:
        return f"tag {tag!r} is neither O nor <prefix>-<type> (e.g. B-PER)"
    if prefix not in allowed:
        return (
            f"prefix {prefix!r} is not part of scheme {scheme} (allowed: {', '.join(allowed)}, O)"
        )
    return None
