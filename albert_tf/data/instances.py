"""Sentence-order (SOP) and next-sentence (NSP) instances: segments A/B, labels, truncation.

The original algorithm (ALBERT `create_instances_from_document`), per document:

- target length = max_seq_length - 3, or with probability `short_seq_prob` a random
  int in [2, max_seq_length - 3] (drawn once per document);
- sentences accumulate into a chunk until it reaches the target or the document ends;
  A = chunk[:a_end], B = chunk[a_end:], a_end uniform in [1, len(chunk) - 1];
- SOP: with probability 0.5 swap A and B, label 1 = swapped (0 = natural order);
  NSP (`random_next_sentence`): with probability 0.5 B comes from another document,
  label 1 = random B (its unused sentences are put back);
- the longer side is trimmed, one piece at a time from the front or back with
  probability 0.5, until len(A) + len(B) <= max_seq_length - 3.

A one-sentence chunk has no sentence boundary to split at. The original then takes B from
a random other document (label 1), which makes 6-8% of its "SOP" negatives NSP-style.
Default here (pure SOP, as in the paper): the sentence is split at a random word start
inside it (at a random piece when it is one word; skipped when it is one piece), then
swapped with probability 0.5 like any chunk. `sop_random_document_fallback=True` gives
the original behaviour. Random documents are drawn from the same batch of documents
(a bounded pool, since the builder streams).

Segments are offsets into `TokenizedDocuments.token_ids`, so building is a cheap loop over
sentences; `assemble_instances` then lays out `[CLS] A [SEP] B [SEP]` for all at once.

Illustration (not run):
    pairs = build_segment_pairs(batch, InstanceOptions(max_seq_length=128), rng, np_rng)
    features = assemble_instances(batch.token_ids, pairs, 128, 2, 3, batch.token_starts)
    features["input_ids"].shape
    (len(pairs), 128)
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np

from albert_tf.config_fields import check_range
from albert_tf.data.tokenized_documents import TokenizedDocuments
from albert_tf.tokenization.truncation import longest_first_lengths


@dataclasses.dataclass(frozen=True)
class InstanceOptions:
    """How instances are cut from documents (original flag names).

    Example:
        >>> InstanceOptions(max_seq_length=128).max_num_tokens
        125
    """

    max_seq_length: int = 512
    short_seq_prob: float = 0.1
    random_next_sentence: bool = False
    sop_random_document_fallback: bool = False

    def __post_init__(self):
        check_range("max_seq_length", self.max_seq_length, low=5)
        check_range("short_seq_prob", self.short_seq_prob, 0.0, 1.0, high_open=False)

    @property
    def max_num_tokens(self) -> int:
        """Room for A and B: max_seq_length minus [CLS] and two [SEP]."""
        return self.max_seq_length - 3


@dataclasses.dataclass(frozen=True)
class SegmentPairs:
    """Instances as slices of the flat id array (int64 [N] each) and labels (1 = swapped
    for SOP, 1 = random B for NSP)."""

    a_start: np.ndarray
    a_length: np.ndarray
    b_start: np.ndarray
    b_length: np.ndarray
    labels: np.ndarray
    skipped_chunks: int = 0

    def __len__(self) -> int:
        return len(self.labels)


class _PairCollector:
    """Accumulates segment slices, then truncates them all at once."""

    def __init__(self):
        self.rows: list[tuple[int, int, int, int, int]] = []

    def add(self, a_start: int, a_length: int, b_start: int, b_length: int, label: int):
        self.rows.append((a_start, a_length, b_start, b_length, label))

    def finish(self, max_num_tokens: int, rng: np.random.Generator, skipped: int) -> SegmentPairs:
        rows = np.array(self.rows, dtype=np.int64).reshape(-1, 5)
        a_start, a_length, b_start, b_length, labels = rows.T.copy()
        kept_a, kept_b = longest_first_lengths(a_length, b_length, max_num_tokens)
        trim = np.stack([a_length - kept_a, b_length - kept_b], axis=1)
        # Each trimmed piece is from the front with p 0.5: the front count is binomial.
        front = rng.binomial(trim, 0.5)
        a_start += front[:, 0]
        b_start += front[:, 1]
        a_length -= trim[:, 0]
        b_length -= trim[:, 1]
        return SegmentPairs(a_start, a_length, b_start, b_length, labels, skipped)


def _random_segment(
    batch: TokenizedDocuments, document: int, target_length: int, rng: random.Random
) -> tuple[int, int]:
    """A segment from a random other document of the batch: sentences from a random start
    until `target_length` pieces (the original's NSP negative)."""
    num_documents = batch.num_documents
    other = document
    for _ in range(10):
        other = rng.randint(0, num_documents - 1)
        if other != document:
            break
    first, last = int(batch.document_starts[other]), int(batch.document_starts[other + 1])
    start = rng.randint(first, last - 1)
    end, length = start, 0
    while end < last:
        length += int(batch.sentence_lengths[end])
        end += 1
        if length >= target_length:
            break
    return int(batch.sentence_starts[start]), length


def _split_point(starts: np.ndarray, rng: random.Random) -> int:
    """Where to split a lone sentence (`starts`: its pieces' unit starts): a random unit start
    after the first piece, else a random piece; 0 when it has one piece (cannot be split)."""
    if len(starts) < 2:
        return 0
    word_starts = np.flatnonzero(starts[1:]) + 1
    if len(word_starts):
        return int(word_starts[rng.randrange(len(word_starts))])
    return rng.randint(1, len(starts) - 1)


def build_segment_pairs(
    batch: TokenizedDocuments,
    options: InstanceOptions,
    rng: random.Random,
    np_rng: np.random.Generator,
) -> SegmentPairs:
    """Cuts every document of the batch into A/B instances (see module docstring).

    Args:
        batch: tokenized documents (sentences at most `max_num_tokens` long); a lone
            sentence is split at one of its `token_starts`.
        options: lengths, probabilities and the SOP/NSP mode.
        rng: draws of the per-sentence loop (Python's RNG is fast for scalars).
        np_rng: vectorized draws (truncation sides).
    """
    lengths = batch.sentence_lengths.tolist()
    starts = batch.sentence_starts.tolist()
    max_num_tokens = options.max_num_tokens
    nsp = options.random_next_sentence
    collector = _PairCollector()
    skipped = 0
    for document in range(batch.num_documents):
        first = int(batch.document_starts[document])
        last = int(batch.document_starts[document + 1])
        target = max_num_tokens
        if rng.random() < options.short_seq_prob:
            target = rng.randint(2, max_num_tokens)
        chunk_first, chunk_length, i = first, 0, first
        while i < last:
            chunk_length += lengths[i]
            if i == last - 1 or chunk_length >= target:
                size = i - chunk_first + 1
                a_end = rng.randint(1, size - 1) if size >= 2 else 1
                a_start = starts[chunk_first]
                a_length = starts[chunk_first + a_end - 1] + lengths[chunk_first + a_end - 1]
                a_length -= a_start
                use_random = (size == 1 and (nsp or options.sop_random_document_fallback)) or (
                    nsp and size >= 2 and rng.random() < 0.5
                )
                if use_random:
                    b_start, b_length = _random_segment(batch, document, target - a_length, rng)
                    collector.add(a_start, a_length, b_start, b_length, 1)
                    i -= size - a_end  # put the unused sentences back (original)
                elif size == 1:
                    split = _split_point(batch.token_starts[a_start : a_start + a_length], rng)
                    if split == 0:
                        skipped += 1
                    elif rng.random() < 0.5:
                        collector.add(a_start + split, a_length - split, a_start, split, 1)
                    else:
                        collector.add(a_start, split, a_start + split, a_length - split, 0)
                else:
                    b_start = starts[chunk_first + a_end]
                    b_length = starts[i] + lengths[i] - b_start
                    if not nsp and rng.random() < 0.5:
                        collector.add(b_start, b_length, a_start, a_length, 1)
                    else:
                        collector.add(a_start, a_length, b_start, b_length, 0)
                chunk_first, chunk_length = i + 1, 0
            i += 1
    return collector.finish(max_num_tokens, np_rng, skipped)


def assemble_instances(
    token_ids: np.ndarray,
    pairs: SegmentPairs,
    max_seq_length: int,
    cls_id: int,
    sep_id: int,
    token_starts: np.ndarray,
) -> dict[str, np.ndarray]:
    """Lays out `[CLS] A [SEP] B [SEP]` + zero padding for all pairs at once.

    `token_starts` (bool [T], beside `token_ids`) says which pieces start a whole-word unit.
    Returns int32 [N, max_seq_length] arrays `input_ids`, `input_mask`, `segment_ids` and
    `token_boundary` (1 = the piece starts a unit; [CLS], [SEP] and the first piece of each
    segment count as starts, so whole words never reach across a segment edge), and int64
    `source` (index into `token_ids` of each position, -1 outside A and B; not a record
    feature).
    """
    position = np.arange(max_seq_length)[None, :]
    a_length = pairs.a_length[:, None]
    b_length = pairs.b_length[:, None]
    b_first = a_length + 2
    b_end = b_first + b_length
    in_a = (position >= 1) & (position <= a_length)
    in_b = (position >= b_first) & (position < b_end)
    source = np.where(
        in_a, pairs.a_start[:, None] + position - 1, pairs.b_start[:, None] + position - b_first
    )
    in_segment = in_a | in_b
    source = np.where(in_segment, source, 0)
    input_ids = np.where(in_segment, token_ids[source], 0).astype(np.int32)
    is_sep = (position == a_length + 1) | (position == b_end)
    input_ids[:, 0] = cls_id
    input_ids[is_sep] = sep_id
    input_mask = (position <= b_end).astype(np.int32)
    segment_ids = ((position >= b_first) & (position <= b_end)).astype(np.int32)
    segment_start = (position == 1) | (position == b_first)
    unit_start = in_segment & token_starts[source]
    token_boundary = (unit_start | segment_start | is_sep) & (input_mask > 0)
    token_boundary[:, 0] = True
    return {
        "input_ids": input_ids,
        "input_mask": input_mask,
        "segment_ids": segment_ids,
        "token_boundary": token_boundary.astype(np.int32),
        "source": np.where(in_segment, source, -1),
    }
