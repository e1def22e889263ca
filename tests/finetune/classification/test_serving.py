"""The exported raw-text SavedModel predicts exactly what the Keras model predicts."""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.finetune.driver import export_finished_run
from albert_tf.runtime import Runtime
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests.finetune.classification.conftest import NEGATIVE, POSITIVE
from tests.finetune.conftest import relabelled_run

pytestmark = pytest.mark.slow  # Needs the trained classification run; exports.

TEXTS = POSITIVE + NEGATIVE + ["an unseen sentence , with café and [MASK]", ""]


@pytest.mark.slow  # Over 5 s: builds on the classification run.
def test_text_signature_matches_keras(finetuned_run):
    output_dir, results = finetuned_run
    task = json.load(open(os.path.join(output_dir, "task.json")))
    model = keras.saving.load_model(os.path.join(output_dir, "model.keras"))
    features = AlbertTextFeatures(
        os.path.join(output_dir, "spm.model"), task["max_seq_length"], task["do_lower_case"]
    )
    packed = features(tf.constant(TEXTS))
    keras_logits = model.predict(packed, verbose=0)

    served = tf.saved_model.load(results["saved_model"])
    assert set(served.signatures) == {"serving_default", "classify_text"}
    outputs = served.signatures["classify_text"](text_a=tf.constant(TEXTS))
    np.testing.assert_allclose(outputs["logits"].numpy(), keras_logits, atol=1e-5)
    np.testing.assert_allclose(outputs["probabilities"].numpy().sum(axis=1), 1.0, atol=1e-5)
    expected_ids = keras_logits.argmax(axis=1)
    np.testing.assert_array_equal(outputs["label_ids"].numpy(), expected_ids)
    assert [label.decode() for label in outputs["labels"].numpy()] == [
        task["labels"][i] for i in expected_ids
    ]
    from_ids = served.signatures["serving_default"](**packed)
    np.testing.assert_allclose(from_ids["logits"].numpy(), keras_logits, atol=1e-5)


@pytest.mark.slow  # Over 5 s: builds on the classification run.
def test_export_refuses_to_overwrite_and_checks_labels(finetuned_run, tmp_path):
    output_dir, results = finetuned_run
    with pytest.raises(FileExistsError, match="already exists"):
        export_finished_run(output_dir, results["saved_model"], runtime=Runtime.plain())
    mislabelled = relabelled_run(output_dir, str(tmp_path / "run"), labels=["a", "b", "c"])
    with pytest.raises(ValueError, match="3 labels for a model with 2 outputs"):
        export_finished_run(mislabelled, str(tmp_path / "other"), runtime=Runtime.plain())
    assert not os.path.exists(tmp_path / "other")
