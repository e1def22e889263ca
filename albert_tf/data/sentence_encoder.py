"""`SentenceEncoder`: fast batch encoding of sentences into one flat id array.

A thin adapter over `AlbertTokenizer` for the data builder: the same ids as
`AlbertTokenizer.encode_batch` (tested), returned as one flat NumPy array plus lengths.

Illustration (not run):
    encoder = SentenceEncoder("/tmp/spm.model")
    ids, lengths = encoder.encode_flat(["Hello world .", "A b ."])
    ids.dtype, lengths.tolist()
    (dtype('int32'), [3, 3])
"""

from __future__ import annotations

import functools
import hashlib
import itertools

import numpy as np
import sentencepiece as spm

from albert_tf.data.word_units import piece_characters
from albert_tf.tokenization.normalize import normalize_text
from albert_tf.tokenization.tokenizer import AlbertTokenizer


class SentenceEncoder:
    """Normalizes and encodes sentences with an ALBERT SentencePiece model.

    Args:
        model_file: the `.model` file (ALBERT id layout).
        do_lower_case: lowercase while normalizing (as the model was trained).
        num_threads: SentencePiece batch-encoding threads.
    """

    def __init__(self, model_file: str, do_lower_case: bool = True, num_threads: int = 1):
        self.model_file = model_file
        self.do_lower_case = do_lower_case
        self.num_threads = num_threads
        self.tokenizer = AlbertTokenizer(model_file, do_lower_case=do_lower_case)
        self._processor = spm.SentencePieceProcessor(
            model_proto=self.tokenizer.serialized_model_proto()
        )
        self.pad_id = self.tokenizer.pad_id
        self.cls_id = self.tokenizer.cls_id
        self.sep_id = self.tokenizer.sep_id
        self.mask_id = self.tokenizer.mask_id
        self.vocab_size = self.tokenizer.vocab_size

    @functools.cached_property
    def word_start_mask(self) -> np.ndarray:
        """Bool [vocab_size]: the piece starts a whole word (the tokenizer's rule)."""
        return np.asarray(self.tokenizer.word_start_mask, dtype=bool)

    @functools.cached_property
    def normal_piece_ids(self) -> np.ndarray:
        """Int32 ids of ordinary pieces: random replacements never draw control/unknown ids."""
        processor = self._processor
        ids = [
            i
            for i in range(self.vocab_size)
            if not (processor.is_control(i) or processor.is_unknown(i) or processor.is_unused(i))
            and i not in (self.pad_id, self.cls_id, self.sep_id, self.mask_id)
        ]
        return np.asarray(ids, dtype=np.int32)

    @functools.cached_property
    def model_sha256(self) -> str:
        """Sha256 of the model file, recorded in the output manifest."""
        with open(self.model_file, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()

    @functools.cached_property
    def piece_characters(self) -> np.ndarray:
        """Int64 [vocab_size]: characters each piece stands for (masked-unit statistics)."""
        return piece_characters(self._processor)

    def normalize(self, text: str) -> str:
        return normalize_text(text, self.do_lower_case)

    def encode_with_offsets(
        self, normalized: list[str]
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(ids, begins, ends) per already normalized sentence: the ids of `encode_flat`, each
        piece's `[begin, end)` in characters of the normalized text ("▁word" spans its space)."""
        results = []
        special = self.tokenizer.special_ids
        for proto in self._processor.encode(normalized, out_type="immutable_proto"):
            pieces = proto.pieces
            ids = np.fromiter((p.id for p in pieces), np.int32, len(pieces))
            begins = np.fromiter((p.begin for p in pieces), np.int64, len(pieces))
            ends = np.fromiter((p.end for p in pieces), np.int64, len(pieces))
            # The tokenizer's rule: a bare "▁" right before a special token is dropped.
            keep = ~((ids == self.tokenizer.space_id) & np.isin(np.roll(ids, -1), special))
            keep[-1:] = True
            results.append((ids[keep], begins[keep], ends[keep]))
        return results

    def encode_flat(self, sentences: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Encodes sentences; returns (int32 ids of all sentences concatenated, int64 lengths)."""
        normalized = [self.normalize(sentence) for sentence in sentences]
        encoded = self._processor.encode(normalized, num_threads=self.num_threads)
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        ids = np.fromiter(
            itertools.chain.from_iterable(encoded), dtype=np.int32, count=int(lengths.sum())
        )
        if self.tokenizer.space_id >= 0 and np.isin(ids, self.tokenizer.special_ids).any():
            # Rare: literal special tokens in the text; the tokenizer applies its own rule.
            encoded = self.tokenizer.encode_batch(sentences)
            lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
            ids = np.fromiter(
                itertools.chain.from_iterable(encoded), dtype=np.int32, count=int(lengths.sum())
            )
        return ids, lengths
