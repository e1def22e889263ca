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
from albert_tf.runtime.trim_padding import cut_to_longest
from albert_tf.tokenization.text_features import AlbertTextFeatures

_FEATURIZE_BATCH = 256  # Strings tokenized per call; amortizes the op overhead.


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
    multiple of `bucket_width` tokens (see `bucket_by_length`).
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
    if training and bucket_width:
        dataset = bucket_by_length(dataset, batch_size, bucket_width)
    else:
        dataset = dataset.batch(batch_size, drop_remainder=training)
    return dataset.prefetch(tf.data.AUTOTUNE)


def bucket_by_length(dataset: tf.data.Dataset, batch_size: int, width: int) -> tf.data.Dataset:
    """Batches of examples of similar length, padded only to the next multiple of `width`.

    Text is padded to `max_seq_length` when featurized; most of it is padding (SST-2 sentences
    average ~13 pieces of 128). Grouping by length (tf.data's `bucket_by_sequence_length`) and
    cutting each batch to its bucket keeps the shapes few and static (one XLA compilation per
    bucket) while the encoder stops spending most of its time on padding.
    """
    features_spec = dataset.element_spec[0] if isinstance(dataset.element_spec, tuple) else None
    seq_length = (features_spec or dataset.element_spec)["input_word_ids"].shape[-1]

    def features_of(element):
        return element[0] if features_spec is not None else element

    def length(*element):
        return tf.reduce_sum(tf.cast(features_of(element)["input_mask"], tf.int32))

    def cut(*element):
        features = cut_to_longest(features_of(element), width)
        return (features, *element[1:]) if features_spec is not None else features

    boundaries = list(range(width + 1, seq_length + 1, width))
    dataset = dataset.bucket_by_sequence_length(
        length,
        bucket_boundaries=boundaries,
        bucket_batch_sizes=[batch_size] * (len(boundaries) + 1),
        drop_remainder=True,
    )
    return dataset.map(cut, num_parallel_calls=tf.data.AUTOTUNE)
