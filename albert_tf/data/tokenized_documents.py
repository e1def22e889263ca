"""`TokenizedDocuments`: a batch of documents as flat NumPy arrays of piece ids.

All sentences of all documents are concatenated into one id array, so a run of
consecutive sentences -- a segment A or B -- is one contiguous slice `[start, start+len)`.
Instance building and masking then work on integer offsets, vectorized.

Each piece also says whether it starts a whole-word unit (`token_starts`, see `word_units`):
the original "▁"/punctuation rule, and in text written without spaces the segmenter's words.

Illustration (not run):
    batch = tokenize_documents(encoder, [Document(("A b .", "C ."), "x", 1)], 509)
    batch.num_documents, batch.sentence_lengths.tolist(), batch.token_starts.tolist()
    (1, [3, 2], [True, True, True, True, True])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from albert_tf.data.documents import Document
from albert_tf.data.sentence_encoder import SentenceEncoder
from albert_tf.data.word_segmenters import WordSegmenter, load_word_segmenter
from albert_tf.data.word_units import UnitMarker


@dataclasses.dataclass(frozen=True)
class TokenizedDocuments:
    """Documents as offsets into one flat id array.

    Attributes:
        token_ids: int32 [T], the pieces of every sentence, in order.
        sentence_starts: int64 [S], offset of each sentence in `token_ids`.
        sentence_lengths: int64 [S], pieces per sentence (all >= 1).
        document_starts: int64 [D + 1], sentence index where each document starts.
        split_sentences: sentences longer than the limit that were cut into pieces.
        token_starts: bool [T], the piece starts a whole-word unit (None: every piece).
        unit_words: int8 [T], 1 where the unit starting at the piece is exactly one of the
            segmenter's words, 0 where it is not, -1 elsewhere (no unit starts there, or
            the sentence has no text written without spaces).
    """

    token_ids: np.ndarray
    sentence_starts: np.ndarray
    sentence_lengths: np.ndarray
    document_starts: np.ndarray
    split_sentences: int = 0
    token_starts: np.ndarray | None = None
    unit_words: np.ndarray | None = None
    word_counts: dict[str, int] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        if self.token_starts is None:
            object.__setattr__(self, "token_starts", np.ones(len(self.token_ids), dtype=bool))
        if self.unit_words is None:
            object.__setattr__(self, "unit_words", np.full(len(self.token_ids), -1, np.int8))

    @property
    def num_documents(self) -> int:
        return len(self.document_starts) - 1


def _split_long_sentences(
    lengths: np.ndarray, max_sentence_tokens: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Cuts sentences longer than the limit into consecutive parts; returns new lengths,
    the index of the source sentence of each part, and the number of sentences cut."""
    parts = np.maximum(1, -(-lengths // max_sentence_tokens))
    source = np.repeat(np.arange(len(lengths)), parts)
    part_index = np.arange(len(source)) - np.repeat(np.cumsum(parts) - parts, parts)
    new_lengths = np.minimum(
        lengths[source] - part_index * max_sentence_tokens, max_sentence_tokens
    )
    return new_lengths, source, int((parts > 1).sum())


def tokenize_documents(
    encoder: SentenceEncoder,
    documents: Sequence[Document],
    max_sentence_tokens: int,
    segmenter: WordSegmenter | None = None,
) -> TokenizedDocuments:
    """Encodes documents and marks their whole-word units (`segmenter`: default none);
    sentences that encode to nothing are dropped, over-long sentences (more than
    `max_sentence_tokens` pieces) are split, and empty documents dropped.

    Raises:
        UserError: the segmenter's words do not cover a sentence (names file and line).
    """
    sentences = [sentence for document in documents for sentence in document.sentences]
    ids, lengths = encoder.encode_flat(sentences)
    doc_of_sentence = np.repeat(
        np.arange(len(documents)), [len(document.sentences) for document in documents]
    )
    first_sentence = np.cumsum([len(document.sentences) for document in documents])

    def where(sentence: int) -> str:
        index = int(np.searchsorted(first_sentence, sentence, side="right"))
        document = documents[index]
        offset = sentence - (int(first_sentence[index]) - len(document.sentences))
        return f"{document.source}:{document.line + offset}"

    marker = UnitMarker(encoder, segmenter or load_word_segmenter("none"))
    token_starts, unit_words, word_counts = marker.mark(sentences, ids, lengths, where)
    keep = lengths > 0
    lengths, doc_of_sentence = lengths[keep], doc_of_sentence[keep]
    lengths, source, split_count = _split_long_sentences(lengths, max_sentence_tokens)
    doc_of_sentence = doc_of_sentence[source]
    starts = np.cumsum(lengths) - lengths
    # Documents left without sentences vanish: boundaries only where a document has some.
    per_document = np.bincount(doc_of_sentence, minlength=len(documents))
    per_document = per_document[per_document > 0]
    document_starts = np.concatenate([[0], np.cumsum(per_document)]).astype(np.int64)
    return TokenizedDocuments(
        ids, starts, lengths, document_starts, split_count, token_starts, unit_words, word_counts
    )
