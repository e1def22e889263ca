"""`albert-tf export`: a workdir's encoder.keras -> SavedModel; flags; errors."""

import os
import pathlib
import shutil
import subprocess

import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops for loading)

from albert_tf.config import AlbertConfig
from albert_tf.models import AlbertEncoder
from tests import commands
from tests.commands import command_line
from tests.conftest import TINY_ALBERT


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    # A subprocess: the command's absl flags are process-global.
    return commands.run(
        command_line("export", *argv),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def script_workdir(tmp_path_factory, tiny_model_file) -> pathlib.Path:
    """Like a pretraining workdir: encoder.keras, albert_config.json, plus the tokenizer."""
    workdir = tmp_path_factory.mktemp("script_workdir")
    config = AlbertConfig(**{**TINY_ALBERT, "num_hidden_layers": 1, "max_position_embeddings": 32})
    AlbertEncoder(config).save(str(workdir / "encoder.keras"))
    config.to_json_file(workdir / "albert_config.json")
    shutil.copyfile(tiny_model_file, workdir / "spm.model")
    return workdir


@pytest.mark.slow  # Over 5 s: builds on a pretraining run.
def test_exports_an_encoder_keras_over_an_existing_dir(script_workdir, tmp_path):
    export_dir = tmp_path / "export"
    export_dir.mkdir()
    (export_dir / "stale.txt").write_text("from a previous export")
    result = _run(
        [
            f"--checkpoint={script_workdir / 'encoder.keras'}",
            f"--albert_config_file={script_workdir / 'albert_config.json'}",
            f"--spm_model_file={script_workdir / 'spm.model'}",
            f"--export_dir={export_dir}",
            "--seq_length=12",
            "--overwrite",
        ]
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"Exported {export_dir}" in result.stdout
    assert sorted(os.listdir(tmp_path)) == ["export"]  # No temporary directory left.
    assert not (export_dir / "stale.txt").exists()
    loaded = tf.saved_model.load(str(export_dir))
    # An encoder.keras has no masked-LM head: no fill_mask.
    assert set(loaded.signatures) == {"serving_default", "encode_text", "encode_text_pair"}
    got = loaded.signatures["encode_text"](text_a=tf.constant(["a b", ""]))
    assert got["input_word_ids"].shape == (2, 12)
    assert sorted(os.listdir(export_dir / "keras")) == [
        "albert_config.json",
        "encoder.keras",
        "spm.model",
        "tokenizer_config.json",
    ]


@pytest.mark.slow  # Over 5 s: builds on a pretraining run.
def test_refuses_an_existing_dir_without_overwrite(script_workdir, tmp_path):
    export_dir = tmp_path / "export"
    export_dir.mkdir()
    result = _run(
        [
            f"--checkpoint={script_workdir / 'encoder.keras'}",
            f"--spm_model_file={script_workdir / 'spm.model'}",
            f"--export_dir={export_dir}",
        ]
    )
    assert result.returncode != 0
    assert "already exists; pass --overwrite" in result.stderr
    assert os.listdir(export_dir) == []
