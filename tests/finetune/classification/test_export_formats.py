"""`albert-tf export --format=NAME` of a fine-tuning run, for every format of the table
(albert_tf/export_formats.py): each writes its main file; the TF Hub pair holds the run's
encoder and tokenizer; keras_hub writes what `albert-tf convert --to=keras_hub` writes."""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops of the SavedModels)

from albert_tf.export_formats import format_names
from tests import commands
from tests.commands import command_line

pytestmark = pytest.mark.slow  # Needs the trained classification run; exports it five ways.

TEXTS = ["a gorgeous , witty film", "the worst script ever", "CAFÉ [MASK]", ""]
# The file each format's directory holds at least (a new format needs its line).
MAIN_FILES = {
    "saved_model": "saved_model.pb",
    "tfhub": "encoder/saved_model.pb",
    "keras_hub": "task.weights.h5",
    "litert": "classifier_ids_float32_b1.tflite",
    "onnx": "classifier_float32.onnx",
}
# The cheapest export of each format: one file where a format writes several.
CHEAP_FLAGS = {"litert": ["--quantizations=float32", "--inputs=ids"]}
CHEAP_FLAGS["onnx"] = ["--quantizations=float32"]


def _export(*flags: str) -> None:
    result = commands.run(command_line(*flags), capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.fixture(scope="module")
def format_exports(finetuned_run, tmp_path_factory) -> dict[str, str]:
    """Every format's export of the run, by format name (each `albert-tf export`)."""
    output_dir, _ = finetuned_run
    root = tmp_path_factory.mktemp("formats")
    exports = {}
    for name in format_names():
        exports[name] = str(root / name)
        _export(
            "export",
            f"--format={name}",
            f"--checkpoint={output_dir}",
            f"--export_dir={exports[name]}",
            *CHEAP_FLAGS.get(name, []),
        )
    return exports


def test_every_format_of_the_table_exports_a_run(format_exports):
    assert set(MAIN_FILES) == set(format_names()), "a format without its main file here"
    for name, export_dir in format_exports.items():
        assert os.path.isfile(os.path.join(export_dir, MAIN_FILES[name])), name


def test_keras_hub_export_is_the_conversion(finetuned_run, format_exports, tmp_path):
    output_dir, _ = finetuned_run
    converted = tmp_path / "converted"
    _export(
        "convert",
        "--from=albert_tf",
        "--to=keras_hub",
        f"--input={output_dir}",
        f"--output={converted}",
    )
    exported = format_exports["keras_hub"]
    assert sorted(os.listdir(exported)) == sorted(os.listdir(converted))
    for name in ("config.json", "task.json", "preprocessor.json", "tokenizer.json"):
        with open(os.path.join(exported, name)) as one, open(converted / name) as other:
            assert json.load(one) == json.load(other), name


def test_tfhub_export_of_a_finetuned_run(finetuned_run, format_exports):
    output_dir, _ = finetuned_run
    export_dir = format_exports["tfhub"]
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
