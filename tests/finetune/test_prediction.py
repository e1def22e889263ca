"""`predict_outputs`: batches cut to their longest text give `model.predict`'s outputs."""

from __future__ import annotations

import gc
import weakref

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.finetune import prediction
from albert_tf.finetune.prediction import cuts_batches, inference_call, predict_outputs
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.models.multiple_choice import AlbertMultipleChoice
from albert_tf.models.span_qa import AlbertSpanQA
from tests.conftest import TINY_ALBERT

LENGTH = 40  # Packed length; the texts below are at most 21 pieces long, so batches are cut.


def features(rows: int, seed: int = 0, longest: int = 21) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, longest + 1, size=rows)
    mask = (np.arange(LENGTH)[None, :] < lengths[:, None]).astype(np.int32)
    return {
        "input_word_ids": (rng.integers(5, 300, size=(rows, LENGTH)) * mask).astype(np.int32),
        "input_mask": mask,
        "input_type_ids": (np.arange(LENGTH)[None, :] >= lengths[:, None] // 2).astype(np.int32)
        * mask,
    }


def batches(values: dict[str, np.ndarray], batch_size: int = 4) -> tf.data.Dataset:
    return tf.data.Dataset.from_tensor_slices(values).batch(batch_size)


@pytest.fixture(scope="module")
def tiny_config() -> AlbertConfig:
    return AlbertConfig(**TINY_ALBERT)


@pytest.fixture
def classifier(tiny_config):
    keras.utils.set_random_seed(0)
    return AlbertClassifier(AlbertEncoder(tiny_config), num_outputs=3)


def test_cut_batches_equal_model_predict(classifier):
    values = features(10)
    expected = classifier.predict(values, batch_size=4, verbose=0)
    assert cuts_batches()
    outputs = predict_outputs(classifier, batches(values))
    assert outputs.shape == (10, 3) and outputs.dtype == np.float32
    np.testing.assert_allclose(outputs, expected, atol=1e-5)


def test_batches_run_cut_to_their_longest_text(classifier, monkeypatch):
    lengths = []

    def recording(inputs):
        lengths.append(int(inputs["input_mask"].shape[1]))
        return inference_call(classifier, inputs)(inputs)

    monkeypatch.setattr(prediction, "inference_call", lambda model, features: recording)
    predict_outputs(classifier, batches(features(8, longest=12)))
    assert lengths == [16, 16]  # Not 40: the longest text rounded up to 16 pieces.


def test_span_logits_keep_their_positions(tiny_config):
    keras.utils.set_random_seed(1)
    model = AlbertSpanQA(AlbertEncoder(tiny_config))
    values = features(6, seed=2)
    expected = model.predict(values, batch_size=3, verbose=0)
    outputs = predict_outputs(model, batches(values, 3), position_fill=-1e4)
    assert outputs.shape == expected.shape == (6, LENGTH, 2)
    kept = values["input_mask"].astype(bool)
    np.testing.assert_allclose(outputs[kept], expected[kept], atol=1e-5)
    assert np.all(outputs[:, 32:] == -1e4)  # Longest text 21 -> cut at 32.


def test_multiple_choice_options_are_not_cut(tiny_config):
    keras.utils.set_random_seed(2)
    model = AlbertMultipleChoice(AlbertEncoder(tiny_config))
    flat = features(8, seed=3)
    values = {name: value.reshape(4, 2, LENGTH) for name, value in flat.items()}
    expected = model.predict(values, batch_size=2, verbose=0)
    np.testing.assert_allclose(predict_outputs(model, batches(values, 2)), expected, atol=1e-5)


def test_one_trace_serves_every_batch_size_and_length(classifier):
    predict_outputs(classifier, batches(features(10, longest=30), batch_size=4))  # 4, 4, 2 rows.
    predict_outputs(classifier, batches(features(3, longest=5)))
    assert inference_call(classifier, None).experimental_get_tracing_count() == 1


def test_new_weights_are_seen(classifier):
    values = features(4, seed=4)
    before = predict_outputs(classifier, batches(values))
    classifier.set_weights([w + 0.05 for w in classifier.get_weights()])
    after = predict_outputs(classifier, batches(values))
    assert not np.allclose(after, before, atol=1e-3)
    np.testing.assert_allclose(after, classifier.predict(values, verbose=0), atol=1e-5)


def test_cached_function_does_not_keep_the_model_alive(tiny_config):
    model = AlbertClassifier(AlbertEncoder(tiny_config), num_outputs=2)
    predict_outputs(model, batches(features(4)))
    reference = weakref.ref(model)
    del model
    gc.collect()
    assert reference() is None


class _TwoReplicas:
    num_replicas_in_sync = 2


def test_several_replicas_keep_model_predict(classifier, monkeypatch):
    assert not cuts_batches(_TwoReplicas())
    monkeypatch.setattr(prediction, "cuts_batches", lambda strategy: False)
    monkeypatch.setattr(prediction, "inference_call", None)  # Would fail if called.
    values = features(4, seed=5)
    np.testing.assert_allclose(
        predict_outputs(classifier, batches(values)),
        classifier.predict(values, verbose=0),
        atol=1e-6,
    )
