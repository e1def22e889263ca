"""Sentences -> `tf.data` windows for Keras, and the Keras model's tag ids per word.

Training: batches of sentences are featurized in the input pipeline by `WordPieceAligner`
(in-graph tokenization, windows), the windows are cached and batched as every family's are
(`albert_tf.finetune.datasets`). Prediction: each batch of sentences goes through the same
aligner and the model, and the logits at each word's first piece are its prediction
(`gather_word_logits`), so every word gets exactly one, windows or not.

Illustration (not run):
    windows, num_windows = training_windows(words, label_ids, aligner)
    predict_tag_ids(model, aligner, words, batch_size=64)  # [[tag id per word] per sentence]
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import keras
import numpy as np
import tensorflow as tf

from albert_tf.finetune.datasets import traced_once
from albert_tf.finetune.prediction import NOTHING_TO_TUNE
from albert_tf.finetune.tagging.word_pieces import WordPieceAligner, gather_word_logits
from albert_tf.tokenization.trim_padding import cut_to_longest

_FEATURIZE_BATCH = 256  # Sentences featurized per call; amortizes the op overhead.


def sentence_batches(
    words: Sequence[Sequence[str]],
    label_ids: Sequence[Sequence[int]] | None = None,
    batch_size: int = _FEATURIZE_BATCH,
) -> tf.data.Dataset:
    """Ordered ragged batches of sentences (`words`, or `(words, labels)`)."""
    columns = [tf.ragged.constant(words, dtype=tf.string, ragged_rank=1)]
    if label_ids is not None:
        columns.append(tf.ragged.constant(label_ids, dtype=tf.int32, ragged_rank=1))
    dataset = tf.data.Dataset.from_tensor_slices(tuple(columns))
    # Slicing an in-memory list has nothing to tune (and autotuning stalled its loops).
    return dataset.ragged_batch(batch_size).with_options(NOTHING_TO_TUNE)


# Ragged batches of sentences: their words and their words' label ids.
_WORDS = tf.RaggedTensorSpec([None, None], tf.string, ragged_rank=1)
_LABEL_IDS = tf.RaggedTensorSpec([None, None], tf.int32, ragged_rank=1)


def _training_window(aligner: WordPieceAligner, words: tf.RaggedTensor, labels: tf.RaggedTensor):
    features, _ = aligner(words, labels)
    labels = features.pop("label_ids")
    return features, labels


def training_windows(
    words: Sequence[Sequence[str]], label_ids: Sequence[Sequence[int]], aligner: WordPieceAligner
) -> tuple[tf.data.Dataset, int]:
    """(one `(features, label_ids)` element per window, in order and cached; their number)."""

    featurize = traced_once(aligner, (_WORDS, _LABEL_IDS), _training_window)
    windows = sentence_batches(words, label_ids).map(featurize).unbatch().cache()
    return windows, int(windows.reduce(0, lambda count, _: count + 1))


def predict_tag_ids(
    model: keras.Model,
    aligner: WordPieceAligner,
    words: Sequence[Sequence[str]],
    batch_size: int,
) -> list[np.ndarray]:
    """The model's tag id for every word: one int array per sentence.

    Each batch is featurized, cut to its longest window (rounded up to `LENGTH_STEP` pieces:
    sentences are mostly far shorter than `max_seq_length`, and a handful of lengths keeps the
    compiled shapes few), run through the model and decoded in one function, traced once per
    (model, aligner) and reused by later calls.
    """
    tag_ids_of = _tag_ids_function(model, aligner)
    predictions: list[np.ndarray] = []
    for (batch,) in sentence_batches(words, batch_size=batch_size):
        ids = tag_ids_of(batch)
        values, splits = ids.flat_values.numpy(), ids.row_splits.numpy()
        predictions.extend(np.split(values, splits[1:-1]))
    return predictions


# model -> {aligner: traced function}; weak on the model, so a dropped model frees its entry.
_TAG_FUNCTIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _tag_ids_function(model: keras.Model, aligner: WordPieceAligner) -> Callable:
    functions = _TAG_FUNCTIONS.setdefault(model, {})
    if aligner not in functions:
        functions[aligner] = _traced_tag_ids(model, aligner)
    return functions[aligner]


def _traced_tag_ids(model: keras.Model, aligner: WordPieceAligner) -> Callable:
    model_ref = weakref.ref(model)  # The function must not keep its own cache key alive.

    @tf.function(input_signature=[_WORDS])
    def tag_ids_of(words):
        features, alignment = aligner(words)
        features = cut_to_longest(features)
        logits = tf.cast(model_ref()(features, training=False), tf.float32)
        word_logits = gather_word_logits(logits, alignment)
        return tf.ragged.map_flat_values(tf.argmax, word_logits, axis=-1, output_type=tf.int32)

    return tag_ids_of
