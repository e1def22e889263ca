"""Every SavedModel albert_tf writes runs in a TF1-style loader: `saved_model_cli run`.

`saved_model_cli` loads the graph with the TF1 `loader.load(session, ...)` and has no flag to
load custom ops; as the README says, a `sitecustomize.py` that imports tensorflow_text, on
`PYTHONPATH`, registers the SentencePiece ops first. Every signature of the pretraining export
(`export_saved_model`) and of the fine-tuned classifier export (`export_task_model`) runs with
`--input_exprs`, and its outputs (`--outdir` .npy files) equal the TF2 loader's.

One subprocess runs `saved_model_cli`'s own argument parser and `run` command for every
signature (TensorFlow starts once); one more runs the real `saved_model_cli` executable.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.export.saved_model import export_saved_model
from albert_tf.models import AlbertClassifier, AlbertEncoder, AlbertPretrainer
from albert_tf.runtime import Runtime
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests.classifier_export import export_classifier_model
from tests.conftest import TINY_ALBERT

VENV_BIN = pathlib.Path(sys.executable).parent
SEQ_LENGTH = 16
TEXTS = ["the game was released in japan", "", "café crème"]
IDS = [[2, 30, 31, 32, 3, 0], [2, 40, 3, 41, 3, 0]]
# (signature, its inputs as `--input_exprs` Python literals) of each export.
PRETRAINING_CALLS = {
    "serving_default": {
        "input_word_ids": IDS,
        "input_mask": [[1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 0]],
        "input_type_ids": [[0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 1, 0]],
    },
    "encode_text": {"text_a": TEXTS},
    "encode_text_pair": {"text_a": TEXTS, "text_b": ["in 2011", "", "brûlée"]},
    "fill_mask": {"text": ["the [MASK] was released", "no mask", "[MASK] [MASK]"]},
}
CLASSIFIER_CALLS = {
    "serving_default": {
        "input_word_ids": [row + [0] * (SEQ_LENGTH - 6) for row in IDS],
        "input_mask": [[1] * 5 + [0] * (SEQ_LENGTH - 5)] * 2,
        "input_type_ids": [[0] * SEQ_LENGTH] * 2,
    },
    "classify_text": {"text_a": TEXTS},
}

# Runs what `saved_model_cli <args>` runs (its parser, then the command), for each args list.
_CLI_DRIVER = textwrap.dedent(
    """
    import json, sys
    assert "tensorflow_text" in sys.modules, "sitecustomize did not import tensorflow_text"
    from tensorflow.python.tools import saved_model_cli
    for args in json.loads(sys.argv[1]):
        saved_model_cli.create_parser().parse_args(args).func()
    """
)


def _input_exprs(inputs: dict) -> str:
    return ";".join(f"{name}={value!r}" for name, value in inputs.items())


def _run_args(export_dir: str, signature: str, inputs: dict, outdir: pathlib.Path) -> list[str]:
    return [
        "run",
        "--dir",
        export_dir,
        "--tag_set",
        "serve",
        "--signature_def",
        signature,
        "--input_exprs",
        _input_exprs(inputs),
        "--outdir",
        str(outdir),
    ]


@pytest.fixture(scope="module")
def sitecustomize_env(tmp_path_factory) -> dict:
    """The environment the README describes: tensorflow_text imported by sitecustomize."""
    hook_dir = tmp_path_factory.mktemp("hook")
    (hook_dir / "sitecustomize.py").write_text("import tensorflow_text  # noqa: F401\n")
    return dict(os.environ, PYTHONPATH=str(hook_dir))


@pytest.fixture(scope="module")
def exports(tmp_path_factory, tiny_model_file) -> dict[str, str]:
    """The pretraining export and a classifier export of a random tiny model."""
    keras.utils.set_random_seed(0)
    root = tmp_path_factory.mktemp("tf1_loaders")
    encoder = AlbertEncoder(AlbertConfig(**TINY_ALBERT))
    pretraining = export_saved_model(
        str(root / "pretraining"),
        AlbertPretrainer(encoder),
        tiny_model_file,
        seq_length=SEQ_LENGTH,
        runtime=Runtime.plain(),
    )
    features = AlbertTextFeatures(tiny_model_file, SEQ_LENGTH)
    classifier = export_classifier_model(
        str(root / "classifier"),
        AlbertClassifier(encoder, num_outputs=3),
        features,
        ("a", "b", "c"),
    )
    return {"pretraining": pretraining, "classifier": classifier}


@pytest.fixture(scope="module")
def loaded(exports) -> dict:
    """Both exports through the TF2 loader, the reference for the TF1-style one."""
    return {name: tf.saved_model.load(path) for name, path in exports.items()}


def _expected(served, signature: str, inputs: dict) -> dict[str, np.ndarray]:
    function = served.signatures[signature]
    specs = function.structured_input_signature[1]
    outputs = function(**{k: tf.constant(v, specs[k].dtype) for k, v in inputs.items()})
    return {name: value.numpy() for name, value in outputs.items()}


def _assert_same(outdir: pathlib.Path, expected: dict[str, np.ndarray], where: str) -> None:
    assert sorted(p.stem for p in outdir.glob("*.npy")) == sorted(expected), where
    for name, value in expected.items():
        got = np.load(outdir / f"{name}.npy", allow_pickle=True)
        if value.dtype.kind in "SO":
            assert got.tolist() == value.tolist(), f"{where}: {name}"
        else:
            np.testing.assert_allclose(got, value, atol=1e-5, rtol=0, err_msg=f"{where}: {name}")


@pytest.mark.slow  # Over 5 s: builds on every kind of export.
def test_every_signature_of_every_export_runs_in_saved_model_cli(
    exports, loaded, sitecustomize_env, tmp_path
):
    calls = [("pretraining", s, i) for s, i in PRETRAINING_CALLS.items()]
    calls += [("classifier", s, i) for s, i in CLASSIFIER_CALLS.items()]
    for export in exports:  # every signature is covered
        assert set(loaded[export].signatures) == set(
            PRETRAINING_CALLS if export == "pretraining" else CLASSIFIER_CALLS
        )
    args = [
        _run_args(exports[export], signature, inputs, tmp_path / export / signature)
        for export, signature, inputs in calls
    ]
    result = subprocess.run(
        [sys.executable, "-c", _CLI_DRIVER, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=300,
        env=sitecustomize_env,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    for export, signature, inputs in calls:
        expected = _expected(loaded[export], signature, inputs)
        _assert_same(tmp_path / export / signature, expected, f"{export}/{signature}")
    fill = np.load(tmp_path / "pretraining" / "fill_mask" / "num_masks.npy")
    assert fill.tolist() == [1, 0, 2]


@pytest.mark.slow  # Over 5 s: builds on every kind of export.
def test_the_saved_model_cli_executable_runs_fill_mask(
    exports, loaded, sitecustomize_env, tmp_path
):
    inputs = PRETRAINING_CALLS["fill_mask"]
    args = _run_args(exports["pretraining"], "fill_mask", inputs, tmp_path / "out")
    result = subprocess.run(
        [str(VENV_BIN / "saved_model_cli"), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=sitecustomize_env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    _assert_same(tmp_path / "out", _expected(loaded["pretraining"], "fill_mask", inputs), "cli")
