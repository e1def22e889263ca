"""A fine-tuning run's encoder exports as a TF Hub pair, with the run's tokenizer."""

from __future__ import annotations

import os

import keras
import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops of the SavedModels)

from albert_tf.export.tfhub import export_tfhub

TEXTS = ["a gorgeous , witty film", "the worst script ever", "CAFÉ [MASK]", ""]


@pytest.mark.slow  # An export of its own: 10-30 s on 2 cores.
def test_tfhub_export_of_a_finetuned_run(finetuned_run, tmp_path):
    output_dir, _ = finetuned_run
    export_dir = export_tfhub(str(tmp_path / "hub"), output_dir)
    model = keras.saving.load_model(os.path.join(output_dir, "model.keras"))
    preprocessor = tf.saved_model.load(os.path.join(export_dir, "preprocessor"))
    encoder = tf.saved_model.load(os.path.join(export_dir, "encoder"))
    assert not hasattr(encoder, "mlm")  # A fine-tuned model has no masked-LM head.
    assert set(encoder.signatures) == {"serving_default"}
    inputs = preprocessor(tf.constant(TEXTS))
    # The default length: 128, or the model's positions when fewer.
    assert inputs["input_word_ids"].shape[1] == model.encoder.config.max_position_embeddings
    got, expected = encoder(inputs), model.encoder(inputs)
    for name in ("pooled_output", "sequence_output"):
        np.testing.assert_allclose(got[name], expected[name], atol=1e-5, rtol=0)
    # The run's own tokenizer came with it.
    for part in ("preprocessor", "encoder"):
        with open(os.path.join(export_dir, part, "assets", "spm.model"), "rb") as exported:
            with open(os.path.join(output_dir, "spm.model"), "rb") as run_file:
                assert exported.read() == run_file.read()
