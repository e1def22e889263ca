"""Served forward passes with constant weights: the reference's outputs, fused kernels, one copy.

Which kernels run follows the machine (`albert_tf.runtime.machine`): oneDNN's fused matmuls and
LayerNorms where TensorFlow hands the dtype to oneDNN, Eigen's fused matmuls elsewhere. The
test runs here for real; the other kinds run in subprocesses that turn oneDNN on or off
(`TF_ENABLE_ONEDNN_OPTS`) or cap its instructions (`ONEDNN_MAX_CPU_ISA`), and the rules
themselves are held to each CPU kind's flags in `test_machine.py`.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from albert_tf import runtime
from albert_tf.config import AlbertConfig
from albert_tf.finetune.classification.serving import export_classifier
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.runtime.frozen_weights import frozen_inference
from albert_tf.runtime.serving_weights import serving_copy
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests.conftest import REPO_ROOT, TINY_ALBERT
from tests.runtime.kernels import expected_kernels, kernels_ran

pytestmark = pytest.mark.usefixtures("frozen_serving")


def _trained_like(precision: str) -> AlbertClassifier:
    """A tiny classifier whose biases and LayerNorm weights are not the initial 0 and 1."""
    tf.keras.utils.set_random_seed(3)
    model = AlbertClassifier(
        AlbertEncoder(AlbertConfig(**TINY_ALBERT), dtype=precision), 3, dtype=precision
    )
    rng = np.random.default_rng(0)
    for variable in model.weights:
        if any(name in variable.path for name in ("bias", "beta", "gamma")):
            noise = 0.1 * rng.standard_normal(variable.shape)
            base = 1.0 if "gamma" in variable.path else 0.0
            variable.assign((base + noise).astype(np.float32))
    return model


def _inputs(batch: int, length: int) -> dict[str, tf.Tensor]:
    rng = np.random.default_rng(1)
    mask = np.ones((batch, length), np.int32)
    mask[0, length // 2 :] = 0  # One padded row: the attention mask must be applied.
    return {
        "input_word_ids": tf.constant(
            rng.integers(5, TINY_ALBERT["vocab_size"], mask.shape), tf.int32
        ),
        "input_mask": tf.constant(mask),
        "input_type_ids": tf.constant((rng.random(mask.shape) < 0.5).astype(np.int32)),
    }


@pytest.mark.parametrize("precision,atol", [("float32", 2e-5), ("mixed_bfloat16", 3e-2)])
def test_frozen_forward_matches_the_model(precision, atol):
    model = serving_copy(_trained_like(precision))
    inputs = _inputs(3, 12)
    expected = np.asarray(model(inputs, training=False), np.float32)
    predict = frozen_inference(model)
    np.testing.assert_allclose(np.asarray(predict(inputs), np.float32), expected, atol=atol)
    # Any batch and length (one input signature, no retracing).
    other = _inputs(1, 7)
    np.testing.assert_allclose(
        np.asarray(predict(other), np.float32),
        np.asarray(model(other, training=False), np.float32),
        atol=atol,
    )
    assert predict.experimental_get_tracing_count() == 1


def test_frozen_graph_reads_no_variables_and_sees_no_later_change():
    model = _trained_like("float32")
    predict = frozen_inference(model)
    graph = predict.get_concrete_function().graph
    library = graph.as_graph_def().library.function  # The shared layers' loop body included.
    assert len(library) >= 1
    nodes = [*graph.as_graph_def().node, *(node for f in library for node in f.node_def)]
    assert not [node for node in nodes if node.op == "ReadVariableOp"]
    assert len([node for node in nodes if node.op == "Const"]) > len(model.weights)
    inputs = _inputs(2, 8)
    before = predict(inputs).numpy()
    model.head.bias.assign(model.head.bias + 1.0)
    np.testing.assert_array_equal(predict(inputs).numpy(), before)


@pytest.mark.parametrize("precision", ["float32", "mixed_bfloat16"])
def test_frozen_forward_runs_the_fused_kernels_this_machine_has(precision, tmp_path):
    assert kernels_ran(precision, str(tmp_path)) == expected_kernels(precision)


# Other machine kinds, as far as this one can stand in for them: oneDNN's rewrites forced on or
# off, and its instructions capped at AVX2 (float32: oneDNN has no bf16 kernels below AVX-512).
@pytest.mark.slow  # A subprocess each (~15 s): TensorFlow's settings are read when it loads.
@pytest.mark.parametrize(
    "setting,precision",
    [
        ({"TF_ENABLE_ONEDNN_OPTS": "1"}, "float32"),
        ({"TF_ENABLE_ONEDNN_OPTS": "1"}, "mixed_bfloat16"),
        ({"TF_ENABLE_ONEDNN_OPTS": "0"}, "float32"),
        ({"ONEDNN_MAX_CPU_ISA": "AVX2"}, "float32"),
    ],
)
def test_frozen_forward_kernels_under_other_onednn_settings(setting, precision, tmp_path):
    env = {**os.environ, **setting, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.run(
        [sys.executable, "-m", "tests.runtime.kernels", precision, str(tmp_path)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(process.stdout.strip().splitlines()[-1])
    assert report["ran"] == report["expected"], report


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_export_stores_each_weight_once_as_a_constant(tiny_model_file, tmp_path):
    model = _trained_like("float32")
    features = AlbertTextFeatures(tiny_model_file, 16)
    export_dir = export_classifier(str(tmp_path / "export"), model, features, ("a", "b", "c"))
    served = tf.saved_model.load(export_dir)
    library = served.signatures["classify_text"].graph.as_graph_def().library.function
    constant_sizes = collections.Counter()
    for node in (node for function in library for node in function.node_def):
        if node.op == "Const" and tf.as_dtype(node.attr["value"].tensor.dtype).is_floating:
            shape = tuple(d.size for d in node.attr["value"].tensor.tensor_shape.dim)
            if np.prod(shape) >= 16:
                constant_sizes[shape] += 1
    weight_sizes = collections.Counter(
        tuple(v.shape) for v in model.weights if np.prod(v.shape) >= 16
    )
    assert constant_sizes == weight_sizes


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_frozen_serving_can_be_switched_off(tiny_model_file, tmp_path, monkeypatch):
    monkeypatch.setenv("ALBERT_TF_FROZEN_SERVING", "0")
    # Decides again: the environment first.
    runtime.configure(runtime.RuntimeOptions(fused_kernels="off", compiled_serving="off"))
    model = _trained_like("float32")
    features = AlbertTextFeatures(tiny_model_file, 16)
    export_dir = export_classifier(str(tmp_path / "export"), model, features, ("a", "b", "c"))
    served = tf.saved_model.load(export_dir)
    assert len([v for v in served.variables if v.dtype.is_floating]) == len(model.weights)
    texts = tf.constant(["a gorgeous , witty film", ""])
    np.testing.assert_allclose(
        served.signatures["classify_text"](text_a=texts)["logits"].numpy(),
        np.asarray(model(features(texts), training=False)),
        atol=1e-5,
    )


@pytest.mark.parametrize(
    "sharing",
    [
        dict(num_hidden_layers=4, num_hidden_groups=2),  # Two loops of two layers.
        dict(num_hidden_layers=3, inner_group_num=2),  # A loop over two blocks per layer.
        dict(num_hidden_layers=3, sharing="shared_attention"),  # No loop.
        dict(num_hidden_layers=1),  # One layer: no loop.
    ],
)
def test_frozen_forward_matches_the_model_for_every_sharing(sharing):
    tf.keras.utils.set_random_seed(4)
    model = AlbertClassifier(AlbertEncoder(AlbertConfig(**{**TINY_ALBERT, **sharing})), 2)
    inputs = _inputs(2, 10)
    np.testing.assert_allclose(
        frozen_inference(model)(inputs).numpy(),
        np.asarray(model(inputs, training=False)),
        atol=2e-5,
    )
