"""`SquadFeaturizer`: SQuAD examples -> `[CLS] question [SEP] context-window [SEP]` windows.

As the original `convert_examples_to_features`: the question keeps its first
`max_query_length` pieces; the context pieces are cut into windows of up to
`max_seq_length - len(question) - 3` pieces starting every `doc_stride` pieces (the last window
ends at the last piece); question segment 0, context segment 1. Each context position keeps the
original character span of its piece (`albert_tf.tokenization.piece_offsets`), so a gold answer
maps to positions and a predicted span maps back to the exact original substring. A window that
does not hold the whole first gold answer (or any window of an unanswerable question) is
labelled with the [CLS] position (0, 0).

Contexts are tokenized once per distinct text (SQuAD asks ~5 questions per paragraph) and
questions with SentencePiece's batch encoder; `iter_windows` streams, `featurize` stacks.

Illustration (not run):
    featurizer = SquadFeaturizer(tokenizer, max_seq_length=384)
    windows = featurizer.featurize(read_squad("dev.json").examples)
    windows.features()["input_word_ids"].shape  # (1701, 384)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

import numpy as np

from albert_tf.errors import UserError
from albert_tf.finetune.span_qa.examples import SquadExample
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID
from albert_tf.tokenization.piece_offsets import PieceSpans, encode_with_offsets
from albert_tf.tokenization.tokenizer import AlbertTokenizer


@dataclasses.dataclass
class SquadWindows:
    """Stacked windows: model inputs, labels, and the original-character span per position.

    `example_index[w]` is the example of window `w`; `char_starts/char_ends[w, p]` the original
    `[start, end)` of the context piece at position `p` (-1 outside the context window).
    """

    input_word_ids: np.ndarray  # int32 [W, S]
    input_type_ids: np.ndarray  # int32 [W, S]
    input_mask: np.ndarray  # int32 [W, S]
    labels: np.ndarray  # int32 [W, 2]: start and end positions (0, 0 = [CLS])
    example_index: np.ndarray  # int32 [W]
    char_starts: np.ndarray  # int32 [W, S]
    char_ends: np.ndarray  # int32 [W, S]

    def __len__(self) -> int:
        return len(self.example_index)

    def features(self) -> dict[str, np.ndarray]:
        """The encoder's input dict."""
        return {
            "input_word_ids": self.input_word_ids,
            "input_mask": self.input_mask,
            "input_type_ids": self.input_type_ids,
        }

    @property
    def context_mask(self) -> np.ndarray:
        """Bool [W, S]: positions holding context pieces (where answers may start and end)."""
        return self.char_starts >= 0


class SquadFeaturizer:
    """Windows of SQuAD examples (see the module docstring).

    Args:
        tokenizer: an `AlbertTokenizer`.
        max_seq_length: window length in pieces, [CLS] and [SEP]s included (original: 384).
        doc_stride: pieces between window starts (original: 128).
        max_query_length: question pieces kept (original: 64).
    """

    def __init__(
        self,
        tokenizer: AlbertTokenizer,
        max_seq_length: int = 384,
        doc_stride: int = 128,
        max_query_length: int = 64,
    ):
        if max_query_length + 4 > max_seq_length:
            raise UserError(
                f"max_query_length {max_query_length} leaves no room for the context in "
                f"max_seq_length {max_seq_length}",
                where="--max_query_length",
                fix=f"use at most {max_seq_length - 4}, or a longer --max_seq_length",
            )
        if doc_stride <= 0:
            raise UserError(f"doc_stride must be positive, got {doc_stride}", where="--doc_stride")
        self.tokenizer = tokenizer
        self.max_seq_length = max_seq_length
        self.doc_stride = doc_stride
        self.max_query_length = max_query_length
        self._contexts: dict[str, PieceSpans] = {}

    def context_pieces(self, context: str) -> PieceSpans:
        """The context's pieces and original spans (cached per text)."""
        pieces = self._contexts.get(context)
        if pieces is None:
            if len(self._contexts) > 4096:
                self._contexts.clear()
            pieces = self._contexts[context] = encode_with_offsets(self.tokenizer, context)
        return pieces

    def window_starts(self, num_pieces: int, window_length: int) -> list[int]:
        """Piece index where each window starts (the original's loop)."""
        starts = [0]
        while starts[-1] + window_length < num_pieces:
            starts.append(starts[-1] + min(window_length, self.doc_stride))
        return starts

    def iter_windows(
        self, examples: Sequence[SquadExample], batch_size: int = 256
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Streams `(example_index, ids, type_ids, labels, char_starts, char_ends)` per window."""
        for first in range(0, len(examples), batch_size):
            chunk = examples[first : first + batch_size]
            questions = self.tokenizer.encode_batch([example.question for example in chunk])
            for offset, (example, question) in enumerate(zip(chunk, questions, strict=True)):
                yield from self._example_windows(first + offset, example, question)

    def featurize(self, examples: Sequence[SquadExample]) -> SquadWindows:
        """All windows of `examples`, stacked."""
        rows = list(self.iter_windows(examples))
        if not rows:
            raise UserError("no examples to featurize")
        index, ids, type_ids, labels, starts, ends = (
            np.stack(column) for column in zip(*rows, strict=True)
        )
        return SquadWindows(
            input_word_ids=ids,
            input_type_ids=type_ids,
            input_mask=(ids != 0).astype(np.int32),
            labels=labels,
            example_index=index.astype(np.int32),
            char_starts=starts,
            char_ends=ends,
        )

    def answer_positions(self, example: SquadExample, pieces: PieceSpans) -> tuple[int, int]:
        """Piece indices (first, last) covering the first gold answer; (-1, -1) when none."""
        if example.is_impossible or not example.answers:
            return -1, -1
        answer = example.answers[0]
        first = int(np.searchsorted(pieces.ends, answer.start, side="right"))
        last = int(np.searchsorted(pieces.starts, answer.end, side="left")) - 1
        if first >= len(pieces.ids) or last < first:
            return -1, -1
        return first, last

    def _example_windows(self, index: int, example: SquadExample, question: list[int]):
        length = self.max_seq_length
        question = question[: self.max_query_length]
        pieces = self.context_pieces(example.context)
        window_length = length - len(question) - 3
        offset = len(question) + 2  # Position of the first context piece.
        answer_first, answer_last = self.answer_positions(example, pieces)
        for start in self.window_starts(len(pieces.ids), window_length):
            stop = min(start + window_length, len(pieces.ids))
            count = stop - start
            ids = np.zeros([length], np.int32)
            ids[0] = CLS_ID
            ids[1 : offset - 1] = question
            ids[offset - 1] = SEP_ID
            ids[offset : offset + count] = pieces.ids[start:stop]
            ids[offset + count] = SEP_ID
            type_ids = np.zeros([length], np.int32)
            type_ids[offset : offset + count + 1] = 1
            char_starts = np.full([length], -1, np.int32)
            char_ends = np.full([length], -1, np.int32)
            char_starts[offset : offset + count] = pieces.starts[start:stop]
            char_ends[offset : offset + count] = pieces.ends[start:stop]
            labels = np.zeros([2], np.int32)
            if answer_first >= start and 0 <= answer_last < stop:
                labels[:] = (answer_first - start + offset, answer_last - start + offset)
            yield index, ids, type_ids, labels, char_starts, char_ends
