"""Length buckets for every family's features: `[T]` with per-example or per-position labels
(classification, tagging, span QA) and `[N, T]` options (multiple choice)."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import tensorflow as tf

from albert_tf.finetune.datasets import (
    bucket_by_length,
    evaluation_batches,
    traced_once,
    training_batches,
)

SEQ_LENGTH = 32


def _features(lengths: np.ndarray) -> dict[str, np.ndarray]:
    """Packed ids whose rows are `lengths` long (any leading shape)."""
    mask = (np.arange(SEQ_LENGTH) < lengths[..., None]).astype(np.int32)
    return {"input_word_ids": mask * 7, "input_mask": mask, "input_type_ids": 0 * mask}


def _check_cut(features, width: int) -> int:
    """The batch is cut to its longest row rounded up to `width`; returns that width."""
    mask = features["input_mask"].numpy()
    cut = mask.shape[-1]
    longest = mask.sum(axis=-1).max()
    assert cut % width == 0 and longest <= cut < longest + width
    assert all(value.shape[-1] == cut for value in features.values())
    return cut


def test_per_position_labels_are_cut_with_the_features():
    lengths = np.random.default_rng(0).integers(1, SEQ_LENGTH + 1, size=64)
    labels = np.where(np.arange(SEQ_LENGTH) < lengths[:, None], 1, -1)  # Tagging's -1 padding.
    examples = tf.data.Dataset.from_tensor_slices((_features(lengths), labels))
    widths = set()
    for features, batch_labels in training_batches(examples, 64, 8, seed=1, bucket_width=8).take(
        16
    ):
        widths.add(_check_cut(features, 8))
        assert batch_labels.shape == features["input_mask"].shape
        np.testing.assert_array_equal(batch_labels.numpy() == 1, features["input_mask"].numpy())
    assert len(widths) > 1


def test_span_labels_are_positions_and_stay_whole():
    lengths = np.random.default_rng(1).integers(4, SEQ_LENGTH + 1, size=32)
    spans = np.stack([lengths // 2, lengths - 1], axis=1)  # Inside each window.
    examples = tf.data.Dataset.from_tensor_slices((_features(lengths), spans))
    for features, labels in bucket_by_length(examples.repeat(), 4, 8).take(8):
        cut = _check_cut(features, 8)
        assert labels.shape == (4, 2) and labels.numpy().max() < cut


def test_options_are_bucketed_by_their_longest_option():
    lengths = np.random.default_rng(2).integers(0, SEQ_LENGTH + 1, size=(40, 3))
    lengths[:, 0] = np.maximum(lengths[:, 0], 1)  # Padding options are all zeros.
    examples = tf.data.Dataset.from_tensor_slices((_features(lengths), np.zeros(40, np.int32)))
    for features, labels in bucket_by_length(examples.repeat(), 4, 16).take(8):
        cut = _check_cut(features, 16)
        assert features["input_word_ids"].shape == (4, 3, cut) and labels.shape == (4,)


def test_evaluation_keeps_every_example_in_order():
    examples = tf.data.Dataset.from_tensor_slices(_features(np.arange(1, 11)))
    batches = list(evaluation_batches(examples, 4))
    assert [b["input_mask"].shape[0] for b in batches] == [4, 4, 2]
    lengths = np.concatenate([b["input_mask"].numpy().sum(axis=1) for b in batches])
    np.testing.assert_array_equal(lengths, np.arange(1, 11))


class _CountingFeaturizer:
    """Doubles its one input; counts how often TensorFlow traces it."""

    traces = 0

    def __call__(self, inputs):
        _CountingFeaturizer.traces += 1
        return inputs[0] * 2


def test_every_dataset_of_a_featurizer_maps_one_traced_function():
    featurizer, spec = _CountingFeaturizer(), [tf.TensorSpec([None], tf.int32)]
    _CountingFeaturizer.traces = 0
    mapped = traced_once(featurizer, spec)
    assert traced_once(featurizer, spec) is mapped
    for values in ([1, 2, 3], [4, 5]):  # a train and a dev set
        dataset = tf.data.Dataset.from_tensor_slices(values).batch(2).map(mapped)
        assert np.concatenate(list(dataset.as_numpy_iterator())).tolist() == [2 * v for v in values]
    assert _CountingFeaturizer.traces == 1
    assert traced_once(_CountingFeaturizer(), spec) is not mapped  # one per featurizer


def test_a_dropped_featurizer_frees_its_traced_function():
    """The cache holds its featurizers weakly: the traced function does not keep one alive."""
    featurizer = _CountingFeaturizer()
    traced_once(featurizer, [tf.TensorSpec([None], tf.int32)])
    alive = weakref.ref(featurizer)
    del featurizer
    gc.collect()
    assert alive() is None
