"""`albert-tf distill` of the tiny multiple-choice run: a 1-layer student, exported and served
with text in."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from tests.finetune.conftest import distill, same_task

pytestmark = pytest.mark.slow  # Distills in a subprocess.


@pytest.mark.slow  # Over 5 s: a distillation run and its export.
def test_distilled_chooser_is_a_run_of_its_family(choice_run, tmp_path):
    teacher_dir, _ = choice_run
    output_dir = tmp_path / "student"
    results = distill(teacher_dir, str(output_dir))
    assert 0.0 <= results["dev/accuracy"] <= 1.0 and "dev/baseline_accuracy" in results
    assert results["train/distillation_loss"] >= 0.0
    assert same_task(output_dir, teacher_dir)
    served = tf.saved_model.load(results["saved_model"]).signatures["choose"]
    outputs = served(
        context=tf.constant(["tom has a small cat ."]),
        question=tf.constant(["tom has a _ ."]),
        options=tf.constant([["cat", "dog", "", ""]]),
    )
    probabilities = outputs["probabilities"].numpy()
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-5)
    assert probabilities[0, 2:].max() == 0.0  # Padded options.
    assert outputs["answers"].numpy()[0].decode() in "AB"
