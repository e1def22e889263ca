"""Whole-word units: which pieces start a word for whole-word masking, in any script.

The original rule (`AlbertTokenizer.word_start_mask`): a piece starts a word when it starts
with "▁" or is one ASCII punctuation character. Text written without spaces (Chinese,
Japanese, Thai) has no "▁" inside a sentence, so under that rule a "word" runs from one
comma to the next. Here, per sentence (its normalized text and SentencePiece offsets):

1. a piece the original rule calls a start starts a unit (Latin-script words keep the rule);
2. a piece whose first character, or the character before it, belongs to a script written
   without spaces (`UNSPACED_RANGES`: CJK ideographs, symbols and punctuation, kana,
   Bopomofo, Hangul compatibility letters excluded, full-width forms, Thai, Lao, Khmer,
   Myanmar) starts a unit when a word starts at its first character: the segmenter's words,
   or without one (`--word_segmenter=none`) every such character;
3. any other piece continues the unit before it; so does the piece after a bare "▁".

So a word split into several pieces is one unit, and a piece that spans two words joins them
into one unit (the second word starts inside it). Whole-word n-gram masking then draws units
(n counted in units), exactly as it drew words; the units are the records' `token_boundary`,
which dynamic masking reads back, so both mask the same units.

A sentence without any such character takes the original rule alone, without calling the
segmenter (English records are unchanged). Each unit also gets a flag "is exactly one of the
segmenter's words" (`whole_word`), for the build statistics.

Example:
    >>> word_starts("我们 喜欢ab", ["我们", " ", "喜欢", "ab"], "test").nonzero()[0].tolist()
    [0, 3, 5]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from albert_tf.errors import UserError
from albert_tf.tokenization.unspaced_scripts import code_points, has_unspaced, unspaced

_SPACE = ord(" ")
# The rule of a build, in its manifest: [with a segmenter, without one].
UNIT_RULE = (
    "units: pieces starting with '▁' or ASCII punctuation start one; in text written without "
    "spaces (CJK, kana, Thai, ...) a piece where a segmenter word starts starts one",
    "units: pieces starting with '▁' or ASCII punctuation start one; in text written without "
    "spaces (CJK, kana, Thai, ...) every character is a word (no segmenter)",
)


def word_starts(text: str, words: list[str], spec: str, where: str = "") -> np.ndarray:
    """Bool [len(text)]: a word of `words` starts at this character.

    The words' non-space characters, in order, must be exactly the text's (spaces may be
    left out or kept; `text` is normalized, so its only whitespace is " ").

    Raises:
        UserError: the words do not cover the text (says where they part).
    """
    compact = ["".join(str(word).split()) for word in words]
    text_compact = "".join(text.split())
    if "".join(compact) != text_compact:
        raise _mismatch(text, compact, spec, where)
    lengths = np.fromiter(map(len, compact), dtype=np.int64, count=len(compact))
    firsts = (np.cumsum(lengths) - lengths)[lengths > 0]
    codes = code_points(text)
    non_space = np.flatnonzero(codes != _SPACE)
    starts = np.zeros(len(text), dtype=bool)
    starts[non_space[firsts]] = True
    return starts


def _mismatch(text: str, compact: list[str], spec: str, where: str) -> UserError:
    joined, position = "", 0
    text_compact = "".join(text.split())
    for index, word in enumerate(compact):
        if not text_compact.startswith(word, position):
            detail = f"word {index} {word!r} is not the text at {text_compact[position:][:12]!r}"
            break
        position += len(word)
        joined += word
    else:
        detail = f"the words stop before {text_compact[position:][:12]!r}"
    return UserError(
        f"word segmenter {spec!r} returned words that do not cover the text ({detail})",
        where=where or None,
        fix="return the sentence's words in order, every character in one of them",
    )


def character_word_starts(codes: np.ndarray) -> np.ndarray:
    """`--word_segmenter=none`: each unspaced character is a word, and so is each run of
    other characters between spaces and unspaced characters."""
    is_unspaced = unspaced(codes)
    space = codes == _SPACE
    after_break = np.concatenate([[True], is_unspaced[:-1] | space[:-1]])
    return is_unspaced | (~space & after_break)


def sentence_units(
    codes: np.ndarray,
    ids: np.ndarray,
    begins: np.ndarray,
    ends: np.ndarray,
    word_start_mask: np.ndarray,
    starts_of_words: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Unit starts and whole-word flags of one sentence's pieces (see module docstring).

    Args:
        codes: int64 [C], code points of the normalized sentence.
        ids, begins, ends: the pieces, with SentencePiece's character offsets.
        word_start_mask: bool [vocab], the original rule.
        starts_of_words: bool [C], a word starts at the character.

    Returns:
        (bool [n] the piece starts a unit, int8 [n]: 1 where a unit starting here is exactly
        one word, 0 where it is not, -1 at pieces that start no unit).
    """
    length = len(codes)
    # A "▁word" piece's span starts at its space: skip it (the dummy prefix has none).
    first = begins + ((begins < length) & (codes[np.minimum(begins, length - 1)] == _SPACE))
    empty = first >= ends  # a bare "▁"
    at = np.minimum(first, length - 1)
    is_unspaced = unspaced(codes)
    near_unspaced = is_unspaced[at] | ((at > 0) & is_unspaced[np.maximum(at - 1, 0)])
    starts = word_start_mask[ids] | (~empty & near_unspaced & starts_of_words[at])
    starts[1:] &= ~empty[:-1] | word_start_mask[ids[1:]]  # "▁" + piece: one unit
    # A unit's characters: from its first piece's first character to its last piece's end.
    unit = np.cumsum(starts) - 1
    last_end = np.zeros(len(ids), dtype=np.int64)
    np.maximum.at(last_end, np.maximum(unit, 0), ends)
    first_char = np.full(len(ids), length, dtype=np.int64)
    np.minimum.at(first_char, np.maximum(unit, 0), np.where(empty, length, first))
    word_before = np.concatenate([[0], np.cumsum(starts_of_words)])  # words starting before i
    unit_first = first_char[unit[starts]]
    unit_end = last_end[unit[starts]]
    ends_at_word = (unit_end >= length) | starts_of_words[np.minimum(unit_end, length - 1)]
    ends_at_word |= codes[np.minimum(unit_end, length - 1)] == _SPACE
    inner_words = word_before[np.maximum(unit_end, unit_first)] - word_before[unit_first]
    whole = (
        (unit_first < length)
        & starts_of_words[np.minimum(unit_first, length - 1)]
        & ends_at_word
        & (inner_words == 1)
    )
    whole_word = np.full(len(ids), -1, dtype=np.int8)
    whole_word[starts] = whole
    return starts, whole_word


def piece_characters(processor) -> np.ndarray:
    """Int64 [vocab]: characters of text each piece stands for ("▁" not counted; `<unk>` 1,
    control pieces 0), to measure masked units in characters."""
    counts = np.zeros(processor.get_piece_size(), dtype=np.int64)
    for piece_id in range(len(counts)):
        if processor.is_unknown(piece_id):
            counts[piece_id] = 1
        elif not processor.is_control(piece_id):
            counts[piece_id] = len(processor.id_to_piece(piece_id).lstrip("\u2581"))
    return counts


class UnitMarker:
    """Marks the unit starts of a batch of sentences (the builders' tokenization step).

    Args:
        encoder: the `SentenceEncoder` (normalization, SentencePiece, the original rule).
        segmenter: the loaded `WordSegmenter`.
    """

    def __init__(self, encoder, segmenter):
        self.encoder = encoder
        self.segmenter = segmenter

    def mark(
        self,
        sentences: list[str],
        ids: np.ndarray,
        lengths: np.ndarray,
        where: Callable[[int], str],
    ) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
        """(bool [T] unit starts, int8 [T] whole-word flags, counts) of the flat `ids` of
        `sentences`; the counts are of the sentences with text written without spaces
        (`unspaced_sentences`) and of their words (`words`, `word_characters`).

        `where(i)` names sentence i's file and line for errors.
        """
        word_start_mask = self.encoder.word_start_mask
        starts = word_start_mask[ids]
        whole_word = np.full(len(ids), -1, dtype=np.int8)
        chosen = [i for i, sentence in enumerate(sentences) if has_unspaced(sentence)]
        counts = {"unspaced_sentences": len(chosen), "words": 0, "word_characters": 0}
        if not chosen:
            return starts, whole_word, counts
        normalized = [self.encoder.normalize(sentences[i]) for i in chosen]
        pieces = self.encoder.encode_with_offsets(normalized)
        words = self.segmenter.segment(normalized)
        offsets = np.cumsum(lengths) - lengths
        for k, index in enumerate(chosen):
            text = normalized[k]
            piece_ids, begins, ends = pieces[k]
            start, count = int(offsets[index]), int(lengths[index])
            if count == 0 or not text:
                continue
            if len(piece_ids) != count or (piece_ids != ids[start : start + count]).any():
                raise AssertionError(f"pieces of {where(index)} differ between encodings")
            codes = code_points(text)
            if words is None:
                starts_of_words = character_word_starts(codes)
            else:
                starts_of_words = word_starts(text, words[k], self.segmenter.spec, where(index))
            unit_starts, flags = sentence_units(
                codes, piece_ids, begins, ends, word_start_mask, starts_of_words
            )
            starts[start : start + count] = unit_starts
            whole_word[start : start + count] = flags
            counts["words"] += int(starts_of_words.sum())
            counts["word_characters"] += int((codes != _SPACE).sum())
        return starts, whole_word, counts
