"""Batches of featurized examples for Keras: training (shuffled, repeated, by length) and eval.

Every family featurizes its own examples into one `(features, labels)` element each (packed
ids `[T]`, or `[N, T]` for N options); batching them is the same for all:

* training: reshuffled every pass, repeated forever (`fit` gets `steps_per_epoch`), batches of
  a static size (`drop_remainder`, as XLA and TPUs want); with `bucket_width`, batches hold
  examples of similar length and are cut to the next multiple of `bucket_width` tokens;
* evaluation and prediction: one ordered pass with every example.

Illustration (not run):
    dataset = training_batches(examples, len(texts), batch_size=32, seed=1, bucket_width=16)
    model.fit(dataset, steps_per_epoch=len(texts) // 32, epochs=3)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import tensorflow as tf

# featurizer -> {(body, input signature): traced function}; weak on the featurizer, so a dropped
# featurizer frees its entry (the functions reach it through a weak reference only).
_TRACED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _call_with_list(featurizer: Callable, *inputs):
    return featurizer(list(inputs))


def traced_once(
    featurizer: Callable,
    input_signature: Sequence[tf.TypeSpec],
    body: Callable = _call_with_list,
) -> Callable:
    """`body(featurizer, *inputs)` as one `tf.function` per featurizer, body and signature.

    `Dataset.map` traces what it maps; mapping an already traced function reuses its graph.
    So the train, dev, test and predict datasets of a run trace the in-graph tokenizer once,
    not once each (about a second per dataset even for a tiny model). `body` must be a
    module-level function: a closure over the featurizer would keep its cache entry alive.
    """
    functions = _TRACED.setdefault(featurizer, {})
    key = (body, tuple(input_signature))
    if key not in functions:
        featurizer_ref = weakref.ref(featurizer)
        functions[key] = tf.function(
            lambda *inputs: body(featurizer_ref(), *inputs),
            input_signature=list(input_signature),
            autograph=False,
        )
    return functions[key]


def training_batches(
    examples: tf.data.Dataset, count: int, batch_size: int, seed: int, bucket_width: int = 0
) -> tf.data.Dataset:
    """`examples` (`count` of them) shuffled each pass, repeated, batched (by length)."""
    dataset = examples.shuffle(count, seed=seed, reshuffle_each_iteration=True).repeat()
    if bucket_width:
        dataset = bucket_by_length(dataset, batch_size, bucket_width)
    else:
        dataset = dataset.batch(batch_size, drop_remainder=True)
    return dataset.prefetch(tf.data.AUTOTUNE)


def evaluation_batches(examples: tf.data.Dataset, batch_size: int) -> tf.data.Dataset:
    """`examples` in order, in batches (the last one may be smaller)."""
    return examples.batch(batch_size).prefetch(tf.data.AUTOTUNE)


def bucket_by_length(dataset: tf.data.Dataset, batch_size: int, width: int) -> tf.data.Dataset:
    """Batches of examples of similar length, padded only to the next multiple of `width`.

    Text is padded to `max_seq_length` when featurized; most of it is padding (SST-2 sentences
    average ~13 pieces of 128). Grouping by length (tf.data's `bucket_by_sequence_length`) and
    cutting each batch to its longest keeps the shapes few and static (one XLA compilation per
    bucket) while the encoder stops spending most of its time on padding. An example's length
    is its longest row of `input_mask` (of all its options); labels shaped like `input_mask`
    (one per position) are cut with the features, and so are sample weights (a third element)
    shaped like them.
    """
    has_labels = isinstance(dataset.element_spec, tuple)
    features_spec = dataset.element_spec[0] if has_labels else dataset.element_spec
    mask_spec = features_spec["input_mask"]
    seq_length = mask_spec.shape[-1]
    cut_labels = has_labels and dataset.element_spec[1].shape == mask_spec.shape

    def length(*element):  # (features,) or (features, labels)
        return _longest(element[0]["input_mask"])

    def cut(*element):  # (features,), (features, labels) or (features, labels, weights)
        features = element[0]
        mask = features["input_mask"]
        longest = tf.maximum(_longest(mask), 1)  # An empty batch keeps one position.
        bound = tf.minimum((longest + width - 1) // width * width, tf.shape(mask)[-1])
        features = {name: value[..., :bound] for name, value in features.items()}
        if not has_labels:
            return features
        # Labels and sample weights shaped like `input_mask` (one per position) are cut too.
        rest = [value[..., :bound] if cut_labels else value for value in element[1:]]
        return (features, *rest)

    boundaries = list(range(width + 1, seq_length + 1, width))
    dataset = dataset.bucket_by_sequence_length(
        length,
        bucket_boundaries=boundaries,
        bucket_batch_sizes=[batch_size] * (len(boundaries) + 1),
        drop_remainder=True,
    )
    return dataset.map(cut, num_parallel_calls=tf.data.AUTOTUNE)


def _longest(mask: tf.Tensor) -> tf.Tensor:
    """The length of the longest row of `mask` (of any rank)."""
    return tf.reduce_max(tf.reduce_sum(tf.cast(mask, tf.int32), axis=-1))
