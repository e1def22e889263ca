"""The multiple-choice run as ONNX: ONNX Runtime and OpenVINO give the SavedModel's outputs."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.export.onnx.runner import OnnxModel
from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures
from tests.finetune.conftest import onnx_export_of

pytestmark = pytest.mark.slow  # Needs the trained multiple-choice run.

CONTEXTS = ["tom has a small cat .", "anna drinks hot tea .", "café"]
QUESTIONS = ["tom has a _ .", "what does anna drink ?", "?"]
OPTIONS = [["cat", "dog", "bird", "fish"], ["milk", "tea", "", ""], ["a", "b", "c", ""]]


@pytest.fixture(scope="module")
def exported(choice_run, tmp_path_factory):
    """(ONNX directory, id features, the SavedModel's outputs on them)."""
    output_dir, results = choice_run
    task, onnx_dir = onnx_export_of(choice_run, tmp_path_factory, "choice_onnx")
    features = ChoiceFeatures(
        os.path.join(output_dir, "spm.model"),
        task["max_seq_length"],
        task["max_qa_length"],
        do_lower_case=task["do_lower_case"],
        blank_per_underscore=task["blank_per_underscore"],
    )([tf.constant(CONTEXTS), tf.constant(QUESTIONS), tf.constant(OPTIONS)])
    expected = tf.saved_model.load(results["saved_model"]).signatures["serving_default"](**features)
    return onnx_dir, features, expected


@pytest.mark.slow  # Over 5 s: builds on the multiple-choice run.
@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_float32_onnx_matches_saved_model(exported, runtime):
    onnx_dir, features, expected = exported
    actual = OnnxModel(onnx_dir, runtime=runtime).run({k: v.numpy() for k, v in features.items()})
    worst = 0.0
    for name in ("logits", "probabilities"):
        difference = np.abs(actual[name] - expected[name].numpy()).max()
        assert difference <= 1e-4, (name, difference)
        worst = max(worst, float(difference))
    assert actual["probabilities"][1, 2:].max() == 0.0  # Padding options.
    np.testing.assert_array_equal(actual["answer_ids"], expected["answer_ids"].numpy())
    assert [str(a) for a in actual["answers"]] == [a.decode() for a in expected["answers"].numpy()]
    print(f"worst |difference| {runtime}: {worst:.2e}")
