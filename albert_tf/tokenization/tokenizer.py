"""`AlbertTokenizer`: ALBERT normalization + SentencePiece, in Python and in-graph.

Behavior (identical in `encode` and `tf_tokenize`, tested on every line of data/sample.txt):

1. `normalize_text` (original ALBERT preprocessing; see normalize.py);
2. SentencePiece unigram encoding, plain (no sampling, no bos/eos);
3. a lone `"▁"` piece directly before `[CLS]`/`[SEP]`/`[MASK]` is dropped: it only encodes the
   space before the special token (`"the [MASK] cat"` -> `▁the [MASK] ▁cat`, the shape the
   pretraining data has after masking a whole word, and what Hugging Face produces).

Differences from the original `tokenization.FullTokenizer` (deliberate):

- The original's digit-comma re-split (`"67,"` -> `["▁67", ","]`, which under Python 3 also
  emits a spurious `"▁"` piece) is NOT reproduced: we return SentencePiece's own segmentation,
  which tensorflow-text reproduces exactly in-graph.
- A literal `[CLS]`/`[SEP]`/`[MASK]` in text encodes to its id (the original splits it into
  pieces); model files lacking them are rejected instead of mapping them to `<unk>`.

Illustration (not run):
    tokenizer = AlbertTokenizer("/tmp/spm.model")
    tokenizer.tokenize("Café [MASK]!")
    ['▁cafe', '[MASK]', '!']
"""

from __future__ import annotations

import functools
import os

import numpy as np
import sentencepiece as spm

from albert_tf.tokenization.model_proto import (
    CLS_ID,
    MASK_ID,
    PAD_ID,
    SEP_ID,
    UNK_ID,
    load_albert_model_proto,
)
from albert_tf.tokenization.normalize import normalize_text

WORD_START_PREFIX = "\u2581"  # "▁", SentencePiece's word-boundary marker.
# The original create_pretraining_data `_is_start_piece` punctuation set.
START_PUNCTUATION = frozenset('!"#$%&"()*+,-./:;?@[\\]^_`{|}~')


class AlbertTokenizer:
    """Python ALBERT tokenizer over a validated SentencePiece model.

    Args:
        model_file: path of a `.model` file with the ALBERT id layout (see model_proto.py).
        do_lower_case: lowercase while normalizing; must match how the model was trained.
        num_threads: threads for `encode_batch` (SentencePiece's native batch encoder).

    Example:
        >>> tokenizer = AlbertTokenizer(spm_model)
        >>> tokenizer.encode_batch(["Hello world.", "[MASK] is"])
        [[...], [4, ...]]
    """

    pad_id = PAD_ID
    unk_id = UNK_ID
    cls_id = CLS_ID
    sep_id = SEP_ID
    mask_id = MASK_ID
    special_ids = (cls_id, sep_id, mask_id)

    def __init__(self, model_file: str, do_lower_case: bool = True, num_threads: int = 2):
        self.model_file = os.fspath(model_file)
        self.do_lower_case = do_lower_case
        self.num_threads = num_threads
        self._model_proto = load_albert_model_proto(self.model_file)
        self._processor = spm.SentencePieceProcessor(model_proto=self._model_proto)
        # Id of the bare "▁" piece, or -1 when the vocabulary has none.
        self.space_id = self._processor.piece_to_id(WORD_START_PREFIX)
        if self._processor.id_to_piece(self.space_id) != WORD_START_PREFIX:
            self.space_id = -1

    @property
    def vocab_size(self) -> int:
        """Number of pieces (ids are `0 .. vocab_size - 1`)."""
        return self._processor.get_piece_size()

    @property
    def processor(self) -> spm.SentencePieceProcessor:
        """The SentencePiece processor over the model (raw pieces, offsets, its other
        encodings), without ALBERT's normalization and post-processing."""
        return self._processor

    def serialized_model_proto(self) -> bytes:
        """Model bytes as used here (special tokens user-defined); for tensorflow-text/export."""
        return self._model_proto

    def normalize(self, text: str) -> str:
        """`normalize_text` with this tokenizer's `do_lower_case`."""
        return normalize_text(text, do_lower_case=self.do_lower_case)

    def tokenize(self, text: str) -> list[str]:
        """Text -> pieces."""
        return [self.id_to_piece(piece_id) for piece_id in self.encode(text)]

    def encode(self, text: str) -> list[int]:
        """Text -> ids (no [CLS]/[SEP] added)."""
        return self._drop_space_before_special(self._processor.encode(self.normalize(text)))

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        """Many texts -> ids, with SentencePiece's multithreaded batch encoder."""
        normalized = [self.normalize(text) for text in texts]
        encoded = self._processor.encode(normalized, num_threads=self.num_threads)
        return [self._drop_space_before_special(ids) for ids in encoded]

    def decode(self, ids: list[int]) -> str:
        """Ids -> text (`<pad>` is dropped; special tokens are shown)."""
        return self._processor.decode([int(piece_id) for piece_id in ids])

    def id_to_piece(self, piece_id: int) -> str:
        """Piece string of an id."""
        return self._processor.id_to_piece(int(piece_id))

    def piece_to_id(self, piece: str) -> int:
        """Id of a piece (`unk_id` when absent)."""
        return self._processor.piece_to_id(piece)

    def is_word_start(self, piece_id: int) -> bool:
        """Whether a piece starts a whole word (see `word_start_mask`)."""
        return bool(self.word_start_mask[int(piece_id)])

    @functools.cached_property
    def word_start_mask(self) -> np.ndarray:
        """Bool [vocab_size]: True where the piece starts a word, for whole-word masking.

        The original's rule (`_is_start_piece`): the piece starts with "▁" or "<" (`<pad>`,
        `<unk>`), or is one ASCII punctuation character; we add `[CLS]`, `[SEP]`, `[MASK]`.
        """
        pieces = [self.id_to_piece(piece_id) for piece_id in range(self.vocab_size)]
        mask = np.array(
            [
                piece.startswith((WORD_START_PREFIX, "<")) or piece in START_PUNCTUATION
                for piece in pieces
            ],
            dtype=bool,
        )
        mask[list(self.special_ids)] = True
        return mask

    def tf_tokenize(self, texts):
        """In-graph: `tf.string` [N] -> `tf.RaggedTensor` int32 [N, None]; same ids as `encode`."""
        return self.text_tokenizer_layer(texts)

    @functools.cached_property
    def text_tokenizer_layer(self):
        """The Keras layer (`AlbertTextTokenizer`) doing `tf_tokenize`; built on first use."""
        from albert_tf.tokenization.text_tokenizer_layer import (  # Loads TensorFlow.
            AlbertTextTokenizer,
        )

        return AlbertTextTokenizer(proto=self._model_proto, do_lower_case=self.do_lower_case)

    def _drop_space_before_special(self, ids: list[int]) -> list[int]:
        """Drops a bare "▁" piece directly followed by a special token (see module docstring)."""
        if self.space_id < 0 or self.space_id not in ids:
            return ids
        special = self.special_ids
        return [
            piece_id
            for index, piece_id in enumerate(ids)
            if not (
                piece_id == self.space_id and index + 1 < len(ids) and ids[index + 1] in special
            )
        ]
