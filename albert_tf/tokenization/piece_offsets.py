"""Pieces with character offsets into the ORIGINAL text, in Python and in-graph, identical.

ALBERT normalizes text before SentencePiece (normalize.py: collapse whitespace, NFKD, drop
combining marks, lowercase), and SentencePiece reports piece offsets into the text it was
given, the normalized one. To map pieces back to the original we normalize character by
character and remember which original character each normalized character came from:

* whitespace runs become one " " owned by the run's first character; leading and trailing
  whitespace vanish (`" ".join(text.split())`);
* any other character becomes `lower(drop_combining(NFKD(char)))`: zero, one or more
  characters (`"é"` -> `"e"`, `"ﬁ"` -> `"fi"`, a lone combining accent -> nothing).

This equals `normalize_text` except where lowercasing depends on context (a word-final Greek
capital sigma lowers to "σ" here, "ς" there); such text tokenizes the same in training and
serving since both use this module. A piece `[b, e)` of the normalized text maps to the
original characters `[owner[b], owner[e - 1] + 1)`, after skipping the " " that SentencePiece
attaches to a word-initial piece ("▁word"); a bare "▁" piece maps to an empty span.

Literal `[CLS]`/`[SEP]`/`[MASK]` in a context keep their special ids (as in `normalize_text`).

Illustration (not run):
    tokenizer = AlbertTokenizer("/tmp/spm.model")
    pieces = encode_with_offsets(tokenizer, "  Café  au lait")
    [("  Café  au lait"[s:e]) for s, e in zip(pieces.starts, pieces.ends)]  # ['Café', 'au', 'lait']
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata

import numpy as np

from albert_tf.tokenization.normalize import (
    _LOWERED_SPECIAL_PATTERN,
    _LOWERED_SPECIAL_TOKENS,
    normalize_text_tf,
    whitespace_regex_class,
)

_WORDS = re.compile(r"\S+")  # Python's \s on str is `str.isspace`, as `str.split()` uses.


@dataclasses.dataclass(frozen=True)
class PieceSpans:
    """Piece ids of a text and each piece's `[start, end)` in the original characters."""

    ids: np.ndarray  # int32 [N]
    starts: np.ndarray  # int32 [N]
    ends: np.ndarray  # int32 [N]


def _normalize_char(char: str, do_lower_case: bool) -> str:
    normalized = "".join(c for c in unicodedata.normalize("NFKD", char) if not _combining(c))
    return normalized.lower() if do_lower_case else normalized


def _combining(char: str) -> bool:
    return unicodedata.combining(char) != 0


_CHAR_CACHE: dict[tuple[str, bool], str] = {}


def normalize_with_offsets(text: str, do_lower_case: bool = True) -> tuple[str, np.ndarray]:
    """(normalized text, int32 owner[i] = original index of normalized character i).

    Example:
        >>> normalized, owners = normalize_with_offsets(" Ａb  Ç ")
        >>> normalized, owners.tolist()
        ('ab c', [1, 2, 3, 5])
    """
    parts: list[str] = []
    owners: list[np.ndarray] = []
    previous_end = -1
    for match in _WORDS.finditer(text):
        start = match.start()
        if previous_end >= 0:  # One " " between words, owned by the first whitespace character.
            parts.append(" ")
            owners.append(np.array([previous_end], np.int32))
        word = match.group()
        if word.isascii():
            parts.append(word.lower() if do_lower_case else word)
            owners.append(np.arange(start, match.end(), dtype=np.int32))
        else:
            for offset, char in enumerate(word):
                key = (char, do_lower_case)
                normalized = _CHAR_CACHE.get(key)
                if normalized is None:
                    normalized = _CHAR_CACHE.setdefault(key, _normalize_char(char, do_lower_case))
                if normalized:
                    parts.append(normalized)
                    owners.append(np.full(len(normalized), start + offset, np.int32))
        previous_end = match.end()
    normalized_text = "".join(parts)
    if do_lower_case and "[" in normalized_text:  # Same length: offsets are unchanged.
        normalized_text = _LOWERED_SPECIAL_PATTERN.sub(
            lambda m: _LOWERED_SPECIAL_TOKENS[m.group(0)], normalized_text
        )
    owner = np.concatenate(owners) if owners else np.zeros([0], np.int32)
    return normalized_text, owner


def spans_from_normalized(
    normalized: str, owner: np.ndarray, begins: np.ndarray, ends: np.ndarray, text_length: int
) -> tuple[np.ndarray, np.ndarray]:
    """Original `[start, end)` of pieces at normalized character offsets `[begins, ends)`."""
    begins = begins.astype(np.int32)
    ends = ends.astype(np.int32)
    # Skip the " " SentencePiece attaches to a word-initial piece.
    codes = np.frombuffer(normalized.encode("utf-32-le"), np.uint32)
    codes = np.append(codes, np.uint32(0))
    while True:  # Usually one pass; "a ¨b" normalizes to "a  b" (two spaces).
        space = (codes[begins] == ord(" ")) & (ends > begins)
        if not space.any():
            break
        begins = begins + space
    owner_ext = np.append(owner, np.int32(text_length))
    starts = owner_ext[begins]
    nonempty = ends > begins
    last = owner_ext[np.maximum(ends - 1, 0)] + 1
    return starts, np.where(nonempty, last, starts).astype(np.int32)


def encode_with_offsets(tokenizer, text: str) -> PieceSpans:
    """Pieces of `text` (an `AlbertTokenizer`) with original character offsets."""
    normalized, owner = normalize_with_offsets(text, tokenizer.do_lower_case)
    proto = tokenizer.processor.encode(normalized, out_type="immutable_proto")
    count = len(proto.pieces)
    ids = np.fromiter((p.id for p in proto.pieces), np.int32, count)
    begins = np.fromiter((p.begin for p in proto.pieces), np.int32, count)
    ends = np.fromiter((p.end for p in proto.pieces), np.int32, count)
    starts, stops = spans_from_normalized(normalized, owner, begins, ends, len(text))
    return PieceSpans(ids, starts, stops)


def encode_with_offsets_tf(texts, sentencepiece, do_lower_case: bool = True):
    """In-graph `encode_with_offsets` for `tf.string` [B]: ragged (ids, starts, ends) [B, None].

    `sentencepiece` is a `tensorflow_text.SentencepieceTokenizer` over the ALBERT model.
    Offsets are in Unicode characters of the original strings. Written on the flat characters
    and pieces with their row ids (per-row sums are batch-wide cumulative sums less each row's
    start): ragged `cumsum`, `where` and joins would trace ~2,400 ops into the serving graph.
    """
    import tensorflow as tf  # Not at the top: encode_with_offsets runs without it.

    from albert_tf.tokenization.ragged_rows import value_row_ids

    chars = tf.strings.unicode_split(texts, "UTF-8")  # [B, C] ragged
    flat, char_splits = chars.values, tf.cast(chars.row_splits, tf.int32)
    char_rows = value_row_ids(char_splits)
    is_space = tf.strings.regex_full_match(flat, whitespace_regex_class())
    not_space = tf.cast(tf.logical_not(is_space), tf.int32)
    before = tf.cumsum(not_space, exclusive=True)  # Non-space characters before, batch-wide.
    totals = tf.concat([before, tf.reduce_sum(not_space)[None]], axis=0)
    row_first = tf.gather(totals, char_splits[:-1])
    row_last = tf.gather(totals, char_splits[1:])
    seen_before = before > tf.gather(row_first, char_rows)
    seen_after = before + not_space < tf.gather(row_last, char_rows)
    first_of_row = tf.range(tf.size(flat)) == tf.gather(char_splits[:-1], char_rows)
    previous_space = tf.concat([[False], is_space[:-1]], axis=0) & tf.logical_not(first_of_row)
    keep_space = is_space & seen_before & seen_after & tf.logical_not(previous_space)
    normalized_chars = normalize_text_tf(flat, do_lower_case=do_lower_case)
    # normalize_text_tf strips a lone whitespace to "", and has no combining marks left.
    emitted = tf.where(keep_space, " ", tf.where(is_space, "", normalized_chars))
    byte_ends = tf.cumsum(tf.strings.length(emitted, unit="BYTE"))  # Batch-wide.
    row_bytes = tf.gather(tf.concat([[0], byte_ends], axis=0), char_splits[:-1])
    normalized = tf.strings.unsorted_segment_join(emitted, char_rows, tf.size(texts))
    if do_lower_case:  # Same length: byte offsets are unchanged.
        for lowered, token in _LOWERED_SPECIAL_TOKENS.items():
            normalized = tf.strings.regex_replace(normalized, re.escape(lowered), token)
    ids, begins, ends = sentencepiece.tokenize_with_offsets(normalized)
    piece_rows = value_row_ids(ids.row_splits)
    begins = tf.cast(begins.flat_values, tf.int32)
    ends = tf.cast(ends.flat_values, tf.int32)
    surface = tf.strings.substr(tf.gather(normalized, piece_rows), begins, ends - begins)
    begins += tf.strings.length(surface) - tf.strings.length(
        tf.strings.regex_replace(surface, "^ +", "")
    )
    # Original index of the character owning normalized byte b of row r: the row's characters
    # whose byte end is <= b, i.e. the batch's whose byte end is <= b + row_bytes[r], less the
    # earlier rows' characters (a byte b < the row's length counts no later row's character).
    offset = tf.gather(row_bytes, piece_rows)
    earlier = tf.gather(char_splits[:-1], piece_rows)

    def owner_count(byte):
        return tf.searchsorted(byte_ends, byte + offset, side="right") - earlier

    starts = owner_count(begins)
    stops = tf.where(ends > begins, owner_count(tf.maximum(ends - 1, 0)) + 1, starts)
    splits = ids.row_splits
    return (
        ids,
        tf.RaggedTensor.from_row_splits(starts, splits, validate=False),
        tf.RaggedTensor.from_row_splits(stops, splits, validate=False),
    )
