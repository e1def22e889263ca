"""ONNX export of tiny models: the fused graph equals Keras, stores shared weights once, and
refuses what it cannot hold (the families' parity with their SavedModels: tests/finetune/*/
test_onnx.py)."""

from __future__ import annotations

import json
import logging
import os

import keras
import numpy as np
import onnxruntime as ort
import pytest

from albert_tf.config import AlbertConfig
from albert_tf.errors import UserError
from albert_tf.export.export_source import ExportSource
from albert_tf.export.onnx.export import export_onnx
from albert_tf.export.onnx.task_graphs import onnx_model
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.models.encoder import AlbertEncoder
from tests.conftest import TINY_ALBERT

BATCH, LENGTH = 3, 12


def features(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    mask = np.ones((BATCH, LENGTH), np.int32)
    mask[1, 7:] = 0  # Padding.
    mask[2, 3:] = 0
    types = np.zeros((BATCH, LENGTH), np.int32)
    types[:, 5:] = 1
    ids = rng.integers(4, TINY_ALBERT["vocab_size"], (BATCH, LENGTH)).astype(np.int32) * mask
    return {"input_word_ids": ids, "input_mask": mask, "input_type_ids": types}


def run(model, feeds: dict) -> dict[str, np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds), strict=True))


@pytest.mark.parametrize(
    "changes",
    [
        dict(num_hidden_layers=3),  # all_shared: one block applied 3 times.
        dict(sharing="shared_attention", hidden_act="relu"),
        dict(sharing="not_shared", hidden_act="gelu_exact", embedding_size=32),
        dict(num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2, sharing="shared_ffn"),
    ],
    ids=["all_shared", "shared_attention_relu", "not_shared_gelu_exact_no_projection", "groups"],
)
def test_encoder_and_classifier_graphs_equal_keras(changes):
    keras.utils.set_random_seed(1)
    config = AlbertConfig(**{**TINY_ALBERT, **changes})
    encoder = AlbertEncoder(config)
    feeds = features()
    expected = encoder(feeds)
    actual = run(onnx_model(encoder), feeds)
    rows = feeds["input_mask"][..., None].astype(bool)
    sequence = np.abs(actual["sequence_output"] - expected["sequence_output"].numpy()) * rows
    assert sequence.max() < 1e-5
    np.testing.assert_allclose(actual["pooled_output"], expected["pooled_output"], atol=1e-5)
    # The classifier's last block runs at [CLS] only, without keys or values.
    classifier = AlbertClassifier(encoder, 3)
    outputs = run(onnx_model(classifier, ["a", "b", "c"]), feeds)
    np.testing.assert_allclose(outputs["logits"], classifier(feeds).numpy(), atol=1e-5)
    assert outputs["labels"].tolist() == [["a", "b", "c"][i] for i in outputs["label_ids"]]


def test_shared_weights_are_stored_once_and_ops_are_fused(tmp_path, caplog):
    keras.utils.set_random_seed(2)
    encoder = AlbertEncoder(AlbertConfig(**{**TINY_ALBERT, "num_hidden_layers": 6}))
    source = ExportSource(encoder)
    caplog.set_level(logging.INFO)
    directory = export_onnx(str(tmp_path / "onnx"), source)
    # The export's own progress line, none of the quantizer's INFO lines (one per tensor).
    info = [r for r in caplog.records if r.levelno == logging.INFO]
    assert [r.getMessage() for r in info] == [f"Exported {directory} (float32, int8)."]
    manifest = json.loads((tmp_path / "onnx" / "onnx.json").read_text())
    float32, int8 = manifest["files"]
    assert float32["ops"]["Attention"] == 6 and float32["ops"]["SkipLayerNormalization"] == 12
    assert float32["ops"]["FastGelu"] == 6 and float32["ops"]["EmbedLayerNormalization"] == 1
    assert int8["ops"]["QAttention"] == 6 and "Attention" not in int8["ops"]
    # Each weight once: the file is about the encoder's weights, not 6 copies of the block.
    weights = sum(np.prod(weight.shape) for weight in encoder.weights) * 4
    assert float32["bytes"] < 1.1 * weights
    feeds = features()
    got = ort.InferenceSession(os.path.join(directory, int8["file"])).run(None, feeds)
    want = encoder(feeds)["pooled_output"].numpy()
    assert np.abs(got[1] - want).max() < 0.1  # int8: close, not equal.


def test_what_onnx_cannot_hold_is_refused(tmp_path):
    encoder = AlbertEncoder(AlbertConfig(**TINY_ALBERT))
    classifier = ExportSource(AlbertClassifier(encoder, 2), task={})
    with pytest.raises(UserError, match="unknown or no quantizations"):
        export_onnx(str(tmp_path / "a"), classifier, quantizations=["int4"])
    classifier.task = {"labels": ["x", "y", "z"]}
    with pytest.raises(UserError, match="3 label names for a model with 2 outputs"):
        export_onnx(str(tmp_path / "b"), classifier)
    assert os.listdir(tmp_path) == []  # Nothing written.
