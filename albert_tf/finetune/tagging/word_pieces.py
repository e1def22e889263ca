"""`WordPieceAligner`: words -> the encoder's windows, and back to one position per word, in graph.

Each word is tokenized on its own (normalization + SentencePiece, `AlbertTextTokenizer`), so a
word's pieces are known exactly; the first piece of a word carries its label and gives its
prediction, the others are ignored in the loss (`IGNORE_LABEL`) unless `label_all_pieces`.

* A word with zero pieces (e.g. only a zero-width space, which normalization removes) gets one
  `[UNK]` piece, so it still has a position and gets a prediction.
* A word longer than a window (`seq_length - 2` pieces) keeps its first pieces.
* A sentence longer than `seq_length - 2` pieces is split at word boundaries into windows
  `[CLS] words [SEP]`, filled greedily; each word lies in exactly one window, so merging the
  windows back gives every word exactly one prediction.

Everything is TensorFlow ops (a `tf.scan` assigns windows), so the same code featurizes the
training data (`tf.data`), evaluation, and the exported SavedModel's `tag`/`tag_words`.

Illustration (not run; spm.model is a SentencePiece model):
    aligner = WordPieceAligner(AlbertTextTokenizer(proto="spm.model"), seq_length=8)
    words = tf.ragged.constant([["EU", "rejects", "German", "call"], ["Hi"]])
    features, alignment = aligner(words)
    alignment["word_window"], alignment["word_position"]  # (window, first piece) per word
"""

from __future__ import annotations

import tensorflow as tf

from albert_tf.tokenization.model_proto import CLS_ID, PAD_ID, SEP_ID, UNK_ID
from albert_tf.tokenization.ragged_rows import value_row_ids
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer

# Label of the positions the loss skips ([CLS], [SEP], padding, non-first pieces).
IGNORE_LABEL = -1


class WordPieceAligner:
    """Ragged words [B, (words)] -> windows of packed ids, and each word's (window, position).

    Args:
        tokenizer: the in-graph tokenizer (its SentencePiece resource is what a SavedModel
            must track).
        seq_length: the model's `max_seq_length` (>= 3).
        label_all_pieces: give every piece of a word the word's label (else only the first).
    """

    def __init__(
        self, tokenizer: AlbertTextTokenizer, seq_length: int, label_all_pieces: bool = False
    ):
        if seq_length < 3:
            raise ValueError(f"seq_length must be >= 3, got {seq_length}.")
        self.tokenizer = tokenizer
        self.seq_length = seq_length
        self.budget = seq_length - 2  # Pieces per window besides [CLS] and [SEP].
        self.label_all_pieces = label_all_pieces

    def __call__(
        self, words: tf.RaggedTensor, labels: tf.RaggedTensor | None = None
    ) -> tuple[dict[str, tf.Tensor], dict[str, tf.Tensor]]:
        """Featurizes a batch of sentences.

        Args:
            words: `tf.string` ragged [B, (n)].
            labels: int32 ragged [B, (n)] word label ids, or None.

        Returns:
            `features`: the encoder inputs `input_word_ids`, `input_mask`, `input_type_ids`,
                int32 [W, seq_length] for the W windows of the batch, plus `label_ids` [W,
                seq_length] (`IGNORE_LABEL` where no label) when `labels` is given.
            `alignment`: `word_window`, `word_position` int32 [N] for the N words of the batch
                (flattened); `window_sentence` int32 [W]; `row_splits` int64 [B + 1] of words.
        """
        flat_words = words.flat_values
        pieces = self._pieces(flat_words)
        counts = tf.cast(pieces.row_lengths(), tf.int32)
        word_rows = value_row_ids(words.row_splits)
        first_in_sentence = tf.range(tf.size(flat_words, out_type=tf.int64)) == tf.gather(
            words.row_starts(), word_rows
        )
        window, offset = self._assign_windows(counts, first_in_sentence)
        num_windows = tf.reduce_max(tf.concat([[-1], window], 0)) + 1
        lengths = tf.math.unsorted_segment_max(offset + counts, window, num_windows)

        piece_word = tf.cast(value_row_ids(pieces.row_splits), tf.int32)
        piece_index = tf.range(tf.size(pieces.flat_values)) - tf.gather(
            tf.cast(pieces.row_starts(), tf.int32), piece_word
        )
        piece_window = tf.gather(window, piece_word)
        piece_position = 1 + tf.gather(offset, piece_word) + piece_index
        piece_indices = tf.stack([piece_window, piece_position], axis=1)
        shape = tf.stack([num_windows, self.seq_length])
        positions = tf.range(self.seq_length)[None, :]
        sep_at = (lengths + 1)[:, None]
        word_ids = tf.scatter_nd(piece_indices, pieces.flat_values - PAD_ID, shape) + PAD_ID
        word_ids = tf.where(positions == 0, CLS_ID, word_ids)
        word_ids = tf.where(positions == sep_at, SEP_ID, word_ids)
        features = {
            "input_word_ids": word_ids,
            "input_mask": tf.cast(positions <= sep_at, tf.int32),
            "input_type_ids": tf.zeros_like(word_ids),
        }
        word_position = 1 + offset
        if labels is not None:
            word_labels = tf.cast(labels.flat_values, tf.int32)
            if self.label_all_pieces:
                indices, updates = piece_indices, tf.gather(word_labels, piece_word)
            else:
                indices = tf.stack([window, word_position], axis=1)
                updates = word_labels
            # Scatter label + 1 into zeros: unlabeled positions come out as IGNORE_LABEL.
            features["label_ids"] = tf.scatter_nd(indices, updates + 1, shape) + IGNORE_LABEL
        alignment = {
            "word_window": window,
            "word_position": word_position,
            "window_sentence": tf.math.unsorted_segment_max(
                tf.cast(word_rows, tf.int32), window, num_windows
            ),
            "row_splits": words.row_splits,
        }
        return features, alignment

    def _pieces(self, flat_words: tf.Tensor) -> tf.RaggedTensor:
        """Piece ids per word: at least one ([UNK] for none), at most a window's worth."""
        pieces = self.tokenizer(flat_words)
        counts = pieces.row_lengths()
        kept_splits = tf.concat([[0], tf.cumsum(tf.clip_by_value(counts, 1, self.budget))], 0)
        # Each kept position reads its word's piece; a word without pieces reads [UNK].
        word = value_row_ids(kept_splits)
        source = (
            tf.gather(pieces.row_splits, word)
            + tf.range(kept_splits[-1])
            - tf.gather(kept_splits, word)
        )
        padded = tf.concat([pieces.values, [UNK_ID]], 0)  # Never gather from empty.
        values = tf.gather(padded, tf.minimum(source, tf.size(pieces.values, tf.int64)))
        values = tf.where(tf.gather(counts, word) > 0, values, UNK_ID)
        return tf.RaggedTensor.from_row_splits(values, kept_splits, validate=False)

    def _assign_windows(
        self, counts: tf.Tensor, first_in_sentence: tf.Tensor
    ) -> tuple[tf.Tensor, tf.Tensor]:
        """(window, piece offset in the window) per word: a greedy fill, word by word."""

        def step(state, word):
            window, _, end = state
            count, first = word
            new_window = first | (end + count > self.budget)
            window = tf.where(new_window, window + 1, window)
            start = tf.where(new_window, 0, end)
            return window, start, start + count

        initial = (tf.constant(-1), tf.constant(0), tf.constant(0))
        window, start, _ = tf.scan(step, (counts, first_in_sentence), initializer=initial)
        return window, start


def gather_word_logits(logits: tf.Tensor, alignment: dict[str, tf.Tensor]) -> tf.RaggedTensor:
    """Each word's logits (at its first piece) as ragged [B, (n), C] from window logits."""
    indices = tf.stack([alignment["word_window"], alignment["word_position"]], axis=1)
    word_logits = tf.gather_nd(logits, indices)
    return tf.RaggedTensor.from_row_splits(word_logits, alignment["row_splits"])
