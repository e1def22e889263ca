"""`predict_outputs`: frozen weights and cut batches give `model.predict`'s outputs."""

from __future__ import annotations

import gc
import weakref

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf import runtime
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.models.multiple_choice import AlbertMultipleChoice
from albert_tf.models.span_qa import AlbertSpanQA
from albert_tf.runtime import prediction
from albert_tf.runtime.prediction import (
    freezes_for_prediction,
    frozen_model_call,
    predict_outputs,
)

pytestmark = pytest.mark.usefixtures("frozen_serving")

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


@pytest.fixture
def classifier(tiny_config):
    keras.utils.set_random_seed(0)
    return AlbertClassifier(AlbertEncoder(tiny_config), num_outputs=3)


def test_frozen_and_cut_equal_model_predict(classifier):
    values = features(10)
    expected = classifier.predict(values, batch_size=4, verbose=0)
    assert freezes_for_prediction()
    outputs = predict_outputs(classifier, batches(values))
    assert outputs.shape == (10, 3) and outputs.dtype == np.float32
    np.testing.assert_allclose(outputs, expected, atol=1e-5)


def test_batches_run_cut_to_their_longest_text(classifier, monkeypatch):
    lengths = []
    call = frozen_model_call(classifier)

    def recording(inputs):
        lengths.append(int(inputs["input_mask"].shape[1]))
        return call(inputs)

    monkeypatch.setattr(prediction, "frozen_model_call", lambda model: recording)
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


def test_new_weights_are_frozen_again(classifier):
    values = features(4, seed=4)
    first = frozen_model_call(classifier)
    assert frozen_model_call(classifier) is first  # Unchanged weights: no new freeze.
    before = predict_outputs(classifier, batches(values))
    weights = classifier.get_weights()
    classifier.set_weights([w + 0.05 for w in weights])
    assert frozen_model_call(classifier) is not first
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


def test_replicas_and_the_switch_keep_model_predict(classifier, monkeypatch):
    assert not freezes_for_prediction(_TwoReplicas())
    monkeypatch.setenv("ALBERT_TF_FROZEN_SERVING", "0")
    # Decides again: the environment first.
    runtime.configure(runtime.RuntimeOptions(fused_kernels="off", compiled_serving="off"))
    assert not freezes_for_prediction()
    monkeypatch.setattr(prediction, "frozen_model_call", None)  # Would fail if called.
    values = features(4, seed=5)
    np.testing.assert_allclose(
        predict_outputs(classifier, batches(values)),
        classifier.predict(values, verbose=0),
        atol=1e-6,
    )
