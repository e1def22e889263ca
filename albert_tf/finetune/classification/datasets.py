"""`make_dataset`: `Examples` -> a `tf.data.Dataset` of (features, label) for Keras.

Text is tokenized and packed in the input pipeline by `AlbertTextFeatures` (in-graph, on
batches of raw strings), once: the features are cached, then shuffled every epoch. Training
batches have a static shape (`drop_remainder`), as XLA and TPUs want.

Illustration (not run):
    dataset = make_dataset(examples, text_features, batch_size=32, training=True)
    model.fit(dataset, steps_per_epoch=len(examples) // 32, epochs=3)
"""

from __future__ import annotations

import tensorflow as tf

from albert_tf.finetune.classification.examples import Examples
from albert_tf.tokenization.text_features import AlbertTextFeatures

_FEATURIZE_BATCH = 256  # Strings tokenized per call; amortizes the op overhead.


def make_dataset(
    examples: Examples,
    text_features: AlbertTextFeatures,
    batch_size: int,
    training: bool = False,
    seed: int = 0,
    with_labels: bool = True,
) -> tf.data.Dataset:
    """Batches of `(features, labels)` (or `features` alone when `with_labels` is False).

    Training datasets repeat forever (pass `steps_per_epoch` to `fit`), shuffle each pass and
    drop the last partial batch; evaluation datasets are one ordered pass with every example.
    """
    columns = [tf.constant(examples.texts_a, tf.string)]
    if examples.texts_b is not None:
        columns.append(tf.constant(examples.texts_b, tf.string))
    if with_labels and examples.labels is None:
        raise ValueError(f"{examples.path}: has no labels to train or evaluate on.")

    def featurize(*texts):
        return text_features(list(texts))

    dataset = tf.data.Dataset.from_tensor_slices(tuple(columns))
    dataset = dataset.batch(_FEATURIZE_BATCH).map(featurize, num_parallel_calls=tf.data.AUTOTUNE)
    dataset = dataset.unbatch()
    if with_labels:
        labels = tf.data.Dataset.from_tensor_slices(examples.labels)
        dataset = tf.data.Dataset.zip((dataset, labels))
    dataset = dataset.cache()
    if training:
        dataset = dataset.shuffle(len(examples), seed=seed, reshuffle_each_iteration=True)
        dataset = dataset.repeat()
    dataset = dataset.batch(batch_size, drop_remainder=training)
    return dataset.prefetch(tf.data.AUTOTUNE)
