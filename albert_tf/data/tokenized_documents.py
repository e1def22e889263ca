"""`TokenizedDocuments`: a batch of documents as flat NumPy arrays of piece ids.

All sentences of all documents are concatenated into one id array, so a run of
consecutive sentences -- a segment A or B -- is one contiguous slice `[start, start+len)`.
Instance building and masking then work on integer offsets, vectorized.

Illustration (not run):
    batch = tokenize_documents(encoder, [Document(("A b .", "C ."), "x", 1)], 509)
    batch.num_documents, batch.sentence_lengths.tolist()
    (1, [3, 2])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from albert_tf.data.documents import Document
from albert_tf.data.sentence_encoder import SentenceEncoder


@dataclasses.dataclass(frozen=True)
class TokenizedDocuments:
    """Documents as offsets into one flat id array.

    Attributes:
        token_ids: int32 [T], the pieces of every sentence, in order.
        sentence_starts: int64 [S], offset of each sentence in `token_ids`.
        sentence_lengths: int64 [S], pieces per sentence (all >= 1).
        document_starts: int64 [D + 1], sentence index where each document starts.
        split_sentences: sentences longer than the limit that were cut into pieces.
    """

    token_ids: np.ndarray
    sentence_starts: np.ndarray
    sentence_lengths: np.ndarray
    document_starts: np.ndarray
    split_sentences: int = 0

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
    encoder: SentenceEncoder, documents: Sequence[Document], max_sentence_tokens: int
) -> TokenizedDocuments:
    """Encodes documents; sentences that encode to nothing are dropped, over-long sentences
    (more than `max_sentence_tokens` pieces) are split, and empty documents dropped."""
    sentences = [sentence for document in documents for sentence in document.sentences]
    ids, lengths = encoder.encode_flat(sentences)
    doc_of_sentence = np.repeat(
        np.arange(len(documents)), [len(document.sentences) for document in documents]
    )
    keep = lengths > 0
    lengths, doc_of_sentence = lengths[keep], doc_of_sentence[keep]
    lengths, source, split_count = _split_long_sentences(lengths, max_sentence_tokens)
    doc_of_sentence = doc_of_sentence[source]
    starts = np.cumsum(lengths) - lengths
    # Documents left without sentences vanish: boundaries only where a document has some.
    per_document = np.bincount(doc_of_sentence, minlength=len(documents))
    per_document = per_document[per_document > 0]
    document_starts = np.concatenate([[0], np.cumsum(per_document)]).astype(np.int64)
    return TokenizedDocuments(ids, starts, lengths, document_starts, split_count)
