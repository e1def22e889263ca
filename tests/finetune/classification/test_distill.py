"""`albert-tf distill` of the tiny classification run: a 1-layer student of its 2-layer
teacher, trained with Keras's Distiller, exported and served with text in."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

from tests.finetune.classification.conftest import NEGATIVE, POSITIVE
from tests.finetune.conftest import distill, same_task

pytestmark = pytest.mark.slow  # Distills in a subprocess.


@pytest.mark.slow  # Over 5 s: a distillation run and its export.
def test_distilled_classifier_is_a_run_of_its_family(finetuned_run, tmp_path):
    teacher_dir, _ = finetuned_run
    output_dir = tmp_path / "student"
    results = distill(teacher_dir, str(output_dir), "--hidden_weight=0.1")
    assert results["train_steps"] == 6 and results["dev/examples"] == 6
    assert results["train/distillation_loss"] >= 0.0  # A KL divergence (and squared errors).
    assert same_task(output_dir, teacher_dir)
    record = json.loads((output_dir / "distillation.json").read_text())
    assert record["student_shape"]["num_hidden_layers"] == 1
    assert record["teacher_shape"]["num_hidden_layers"] == 2
    # The shared block applied once: the same weights, no new ones.
    assert record["student_parameters"] == record["teacher_parameters"]
    served = tf.saved_model.load(results["saved_model"])
    outputs = served.signatures["classify_text"](text_a=tf.constant(POSITIVE + NEGATIVE))
    np.testing.assert_allclose(outputs["probabilities"].numpy().sum(axis=1), 1.0, atol=1e-5)
    assert {label.decode() for label in outputs["labels"].numpy()} <= {"0", "1"}
