"""ALBERT text normalization, in Python and in-graph, with identical results.

The original ALBERT (`tokenization.preprocess_text`) normalizes text before SentencePiece:

1. collapse whitespace: `" ".join(text.strip().split())` (Unicode whitespace, `str.isspace`);
2. NFKD, then drop every character with a nonzero canonical combining class
   (`unicodedata.combining`), so accents are always stripped;
3. lowercase (`str.lower`) when `do_lower_case`.

Deliberate choices (documented, tested):

- Hugging Face's ALBERT tokenizer also maps ``` `` ``` and `''` to `"`; the original does NOT.
  We keep the original behavior by default; pass `map_quotes=True` to get the Hugging Face one.
- The special tokens `[CLS]`, `[SEP]` and `[MASK]` survive lowercasing: after `lower()` we
  restore their upper-case spelling, so a literal `[MASK]` (any casing, when lowercasing) in
  text maps to the mask id in both the Python and the in-graph tokenizer (fill-mask needs it).
- The in-graph version uses explicit character classes generated from Python's `unicodedata`
  (whitespace, combining marks) rather than RE2's `\\s` / `\\p{Mn}`, which are different sets
  (RE2's `\\s` is ASCII only; `\\p{Mn}` is not "combining class != 0"). NFKD and lowercasing
  use ICU in the graph; they agree with Python except for characters whose Unicode version
  differs between Python's `unicodedata` and TensorFlow's ICU.

Example:
    >>> normalize_text("  Café\\tNAÏVE [MASK]  ")
    'cafe naive [MASK]'
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[MASK]")

# Lowercased special tokens -> their canonical spelling (restored after lowercasing).
_LOWERED_SPECIAL_TOKENS = {token.lower(): token for token in SPECIAL_TOKENS}
_LOWERED_SPECIAL_PATTERN = re.compile("|".join(re.escape(t) for t in _LOWERED_SPECIAL_TOKENS))


class _CombiningMarks(dict):
    """`str.translate` table deleting characters with a nonzero combining class, filled
    on demand (scanning all of Unicode up front costs ~0.5 s per process)."""

    def __missing__(self, codepoint: int) -> int | None:
        value = None if unicodedata.combining(chr(codepoint)) else codepoint
        self[codepoint] = value
        return value


_COMBINING_MARKS = _CombiningMarks()


def normalize_text(text: str, do_lower_case: bool = True, map_quotes: bool = False) -> str:
    """Normalizes one string exactly like the original ALBERT `preprocess_text`.

    Args:
        text: the raw text.
        do_lower_case: lowercase after stripping accents (special tokens keep their case).
        map_quotes: also map ``` `` ``` and `''` to `"` (Hugging Face behavior, not original).

    Returns:
        The normalized text.

    Example:
        >>> normalize_text("Ångström  is\\nnice", do_lower_case=False)
        'Angstrom is nice'
    """
    outputs = " ".join(text.split())
    if map_quotes:
        outputs = outputs.replace("``", '"').replace("''", '"')
    # NFKD and dropping combining marks are the identity on ASCII, most of a corpus.
    if not outputs.isascii():
        outputs = unicodedata.normalize("NFKD", outputs)
        if not outputs.isascii():
            outputs = outputs.translate(_COMBINING_MARKS)
    if do_lower_case:
        outputs = outputs.lower()
        outputs = _LOWERED_SPECIAL_PATTERN.sub(
            lambda match: _LOWERED_SPECIAL_TOKENS[match.group(0)], outputs
        )
    return outputs


def _ranges_to_regex_class(codepoints: list[int]) -> str:
    """Builds an RE2 character class `[...]` from sorted codepoints, merging runs into ranges."""
    parts = []
    start = previous = codepoints[0]
    for codepoint in [*codepoints[1:], None]:
        if codepoint is not None and codepoint == previous + 1:
            previous = codepoint
            continue
        if start == previous:
            parts.append(f"\\x{{{start:x}}}")
        else:
            parts.append(f"\\x{{{start:x}}}-\\x{{{previous:x}}}")
        if codepoint is not None:
            start = previous = codepoint
    return "[" + "".join(parts) + "]"


@functools.cache
def whitespace_regex_class() -> str:
    """RE2 class of the characters `str.split()` splits on (Python's `str.isspace`)."""
    return _ranges_to_regex_class([c for c in range(sys.maxunicode + 1) if chr(c).isspace()])


@functools.cache
def combining_regex_class() -> str:
    """RE2 class of the characters with a nonzero canonical combining class."""
    return _ranges_to_regex_class(
        [c for c in range(sys.maxunicode + 1) if unicodedata.combining(chr(c))]
    )


def normalize_text_tf(texts, do_lower_case: bool = True, map_quotes: bool = False):
    """In-graph `normalize_text` for a string tensor of any shape (usable in tf.data / SavedModel).

    Args:
        texts: `tf.string` tensor (UTF-8).
        do_lower_case: lowercase after stripping accents (special tokens keep their case).
        map_quotes: also map ``` `` ``` and `''` to `"` (Hugging Face behavior, not original).

    Returns:
        A `tf.string` tensor of the same shape.

    Illustration (not run):
        normalize_text_tf(tf.constant(["  Café\\tNAÏVE [MASK] "])).numpy()
        array([b'cafe naive [MASK]'], dtype=object)
    """
    import tensorflow as tf  # Not at the top: the data builder imports this module.
    import tensorflow_text as tf_text

    texts = tf.convert_to_tensor(texts, dtype=tf.string)
    texts = tf.strings.regex_replace(texts, whitespace_regex_class() + "+", " ")
    texts = tf.strings.regex_replace(texts, "^ | $", "")
    if map_quotes:
        texts = tf.strings.regex_replace(texts, "``|''", '"')
    texts = tf_text.normalize_utf8(texts, "NFKD")
    texts = tf.strings.regex_replace(texts, combining_regex_class(), "")
    if do_lower_case:
        texts = _lower_keeping_nul(texts)
        for lowered, token in _LOWERED_SPECIAL_TOKENS.items():
            texts = tf.strings.regex_replace(texts, re.escape(lowered), token)
    return texts


def _lower_keeping_nul(texts):
    """`tf.strings.lower` (ICU, like `str.lower`), which would truncate at the first NUL byte.

    We lowercase the NUL-separated parts and join them back. The NUL is re-appended as tensor
    data: string attributes (a join's separator) cannot hold a NUL byte.
    """
    import tensorflow as tf  # Not at the top: the data builder imports this module.

    from albert_tf.tokenization.string_parts import split_parts

    flat = tf.reshape(texts, [-1])
    parts, rows, is_last_part = split_parts(flat, "\x00")
    lowered = tf.strings.lower(parts, encoding="utf-8")
    lowered += tf.where(is_last_part, tf.constant(""), tf.constant("\x00"))
    joined = tf.strings.unsorted_segment_join(lowered, rows, num_segments=tf.size(flat))
    return tf.reshape(joined, tf.shape(texts))
