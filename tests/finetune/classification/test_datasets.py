"""Tests for albert_tf.finetune.classification.datasets: length bucketing of training batches."""

import numpy as np
import pytest

from albert_tf.finetune.classification.datasets import make_dataset
from albert_tf.finetune.classification.examples import Examples
from albert_tf.tokenization.text_features import AlbertTextFeatures

pytestmark = pytest.mark.slow  # Tokenizes in tf.data; one test fits under XLA.


def _examples(count: int = 96) -> Examples:
    rng = np.random.default_rng(0)
    words = "the film was a gorgeous quiet dull slow bright story of its time".split()
    texts = [" ".join(rng.choice(words, size=rng.integers(1, 40))) for _ in range(count)]
    return Examples(
        texts_a=texts,
        texts_b=None,
        labels=np.arange(count, dtype=np.int32),  # Labels double as example ids.
        ids=[str(i) for i in range(count)],
        path="constructed",
    )


@pytest.mark.slow  # Over 5 s: tokenizes and buckets in tf.data.
def test_bucketed_batches_are_cut_to_their_bucket(tiny_model_file):
    examples = _examples()
    features = AlbertTextFeatures(tiny_model_file, 64)
    padded = make_dataset(examples, features, batch_size=8, training=True, seed=1)
    bucketed = make_dataset(
        examples, features, batch_size=8, training=True, seed=1, bucket_width=16
    )
    full_lengths = {}
    for batch, labels in padded.take(24):
        assert batch["input_word_ids"].shape == (8, 64)
        for label, mask in zip(labels.numpy(), batch["input_mask"].numpy(), strict=True):
            full_lengths[int(label)] = int(mask.sum())
    widths, padding = set(), []
    for batch, labels in bucketed.take(24):
        width = batch["input_word_ids"].shape[1]
        widths.add(width)
        assert width % 16 == 0 and width <= 64
        lengths = batch["input_mask"].numpy().sum(axis=1)
        assert lengths.max() > width - 16  # Cut to the bucket of its longest example.
        assert {key: value.shape[1] for key, value in batch.items()} == dict.fromkeys(batch, width)
        for label, length in zip(labels.numpy(), lengths, strict=True):
            assert full_lengths.get(int(label), length) == length  # Nothing cut off.
        padding.append(1 - lengths.sum() / lengths.size / width)
    assert len(widths) > 1
    assert np.mean(padding) < 0.25  # Similar lengths together: little padding left.


def test_evaluation_ignores_bucketing(tiny_model_file):
    examples = _examples(20)
    features = AlbertTextFeatures(tiny_model_file, 64)
    dataset = make_dataset(examples, features, batch_size=8, bucket_width=16)
    labels = np.concatenate([labels.numpy() for _, labels in dataset])
    np.testing.assert_array_equal(labels, np.arange(20))


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_xla_fit_runs_on_bucketed_batches(tiny_model_file, tiny_config):
    import keras
    import tensorflow as tf

    from albert_tf.models import AlbertClassifier, AlbertEncoder

    examples = _examples()
    features = AlbertTextFeatures(tiny_model_file, 64)
    dataset = make_dataset(examples, features, batch_size=8, training=True, bucket_width=32)
    # Which bucket fills first follows the shuffle, hence the global seed (with another seed
    # the first three batches were one width in 9 of 30 tries). One epoch's worth of batches
    # holds both widths in any order; train on one batch of each (each new width compiles the
    # step again, ~5-10 s on 2 cores).
    one_per_width = {
        batch["input_word_ids"].shape[1]: (batch, labels)
        for batch, labels in dataset.take(len(examples) // 8)
    }
    assert sorted(one_per_width) == [32, 64]
    batches = tf.data.Dataset.from_generator(
        lambda: iter(one_per_width.values()), output_signature=dataset.element_spec
    )
    # One layer: what is tested is the widths, and XLA compiles each block it is given.
    model = AlbertClassifier(AlbertEncoder(tiny_config.replace(num_hidden_layers=1)), 96)
    model.compile(
        optimizer="sgd",  # XLA compiles it about twice as fast as Adam on CPU.
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=True,
    )
    history = model.fit(batches, steps_per_epoch=2, epochs=1, verbose=0, shuffle=False)
    assert np.isfinite(history.history["loss"][0])
