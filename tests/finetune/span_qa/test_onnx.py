"""The span QA run as ONNX: windows in, each window's best span out; with the host's pre- and
post-step (`albert_tf.finetune.span_qa.onnx_answers`), the SavedModel's `answer` outputs."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.export.onnx.runner import OnnxModel
from albert_tf.finetune.span_qa.onnx_answers import best_answers, span_windows
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer
from tests.finetune.conftest import onnx_export_of

pytestmark = pytest.mark.slow  # Needs the trained span QA run.

QUESTIONS = ["who conquered england?", "what?", "x", "when did the normans come?"]
CONTEXTS = [
    " ".join(["the normans conquered england in 1066 ."] * 12),  # Several windows.
    "   ",
    "tiny",
    "The Normans came to Normandy in the 10th and 11th centuries, café au lait.",
]


@pytest.fixture(scope="module")
def exported(span_qa_run, tmp_path_factory):
    """(task.json, ONNX directory, the SavedModel's answers)."""
    output_dir, results = span_qa_run
    task, onnx_dir = onnx_export_of(span_qa_run, tmp_path_factory, "squad_onnx")
    served = tf.saved_model.load(results["saved_model"]).signatures["answer"](
        question=tf.constant(QUESTIONS), context=tf.constant(CONTEXTS)
    )
    return task, onnx_dir, {name: value.numpy() for name, value in served.items()}


@pytest.mark.slow  # Over 5 s: builds on the span QA run.
@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_float32_onnx_answers_as_the_saved_model(span_qa_run, exported, runtime):
    output_dir, _ = span_qa_run
    task, onnx_dir, served = exported
    tokenizer = AlbertTextTokenizer(
        proto=os.path.join(output_dir, "spm.model"), do_lower_case=task["do_lower_case"]
    )
    windows = span_windows(
        tokenizer,
        QUESTIONS,
        CONTEXTS,
        task["max_seq_length"],
        task["doc_stride"],
        task["max_query_length"],
    )
    assert np.bincount(windows.example)[0] > 1  # The long context spans windows.
    outputs = OnnxModel(onnx_dir, runtime=runtime).run(windows.features)
    answers = best_answers(
        outputs,
        windows,
        CONTEXTS,
        task["version_2_with_negative"],
        task.get("null_score_diff_threshold") or 0.0,
    )
    assert answers["answer"] == [text.decode() for text in served["answer"]]
    for name in ("start", "end"):
        np.testing.assert_array_equal(answers[name], served[name])
    worst = 0.0
    for name in ("score", "null_odds"):
        difference = np.abs(answers[name] - served[name]).max()
        assert difference <= 1e-4, (name, difference)
        worst = max(worst, float(difference))
    print(f"worst |difference| {runtime}: {worst:.2e}")
