"""`make_dataset`: `Examples` -> a `tf.data.Dataset` of (features, label) for Keras.

Text is tokenized and packed in the input pipeline by `AlbertTextFeatures` (in-graph, on
batches of raw strings), once: the features are cached, then batched as every family's are
(`albert_tf.finetune.datasets`: shuffled every epoch for training, by length with
`bucket_width`).

Illustration (not run):
    dataset = make_dataset(examples, text_features, batch_size=32, training=True)
    model.fit(dataset, steps_per_epoch=len(examples) // 32, epochs=3)
"""

from __future__ import annotations

import tensorflow as tf

from albert_tf.finetune.classification.examples import Examples
from albert_tf.finetune.datasets import evaluation_batches, traced_once, training_batches
from albert_tf.tokenization.text_features import AlbertTextFeatures

_FEATURIZE_BATCH = 256  # Strings tokenized per call; amortizes the op overhead.


def featurized_examples(
    examples: Examples, text_features: AlbertTextFeatures, with_labels: bool = True
) -> tf.data.Dataset:
    """One `(features, label)` element per example (`features` alone without labels), cached."""
    columns = [tf.constant(examples.texts_a, tf.string)]
    if examples.texts_b is not None:
        columns.append(tf.constant(examples.texts_b, tf.string))
    if with_labels and examples.labels is None:
        raise ValueError(f"{examples.path}: has no labels to train or evaluate on.")

    featurize = traced_once(text_features, [tf.TensorSpec([None], tf.string)] * len(columns))
    dataset = tf.data.Dataset.from_tensor_slices(tuple(columns))
    dataset = dataset.batch(_FEATURIZE_BATCH).map(featurize, num_parallel_calls=tf.data.AUTOTUNE)
    dataset = dataset.unbatch()
    if with_labels:
        labels = tf.data.Dataset.from_tensor_slices(examples.labels)
        dataset = tf.data.Dataset.zip((dataset, labels))
    return dataset.cache()


def make_dataset(
    examples: Examples,
    text_features: AlbertTextFeatures,
    batch_size: int,
    training: bool = False,
    seed: int = 0,
    with_labels: bool = True,
    bucket_width: int = 0,
) -> tf.data.Dataset:
    """Batches of `(features, labels)` (or `features` alone when `with_labels` is False).

    Training datasets repeat forever (pass `steps_per_epoch` to `fit`), shuffle each pass and
    drop the last partial batch; evaluation datasets are one ordered pass with every example.
    With `bucket_width`, training batches hold examples of similar length, cut to the next
    multiple of `bucket_width` tokens.
    """
    dataset = featurized_examples(examples, text_features, with_labels)
    if training:
        return training_batches(dataset, len(examples), batch_size, seed, bucket_width)
    return evaluation_batches(dataset, batch_size)
