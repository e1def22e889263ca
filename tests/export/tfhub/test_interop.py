"""TF Hub exports of converted Hugging Face and original TF1 checkpoints give their outputs."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops of the SavedModels)
import torch
import transformers

from albert_tf.convert.convert import convert_checkpoint, load_model
from albert_tf.export.export_source import ExportSource
from albert_tf.export.tfhub.export import export_tfhub
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT, TINY_VOCAB_SIZE
from tests.convert.test_hf_checkpoint import padded_batch, torch_outputs

TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """(PyTorch model, its Hugging Face directory, the same as an original TF1 checkpoint)."""
    torch.manual_seed(0)
    config = transformers.AlbertConfig(
        vocab_size=TINY_VOCAB_SIZE,  # The tiny SentencePiece model's.
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=48,
        max_position_embeddings=40,
        hidden_act="gelu_new",
    )
    model = transformers.AlbertForPreTraining(config).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    root = tmp_path_factory.mktemp("interop")
    model.save_pretrained(root / "hf")
    convert_checkpoint("hf", str(root / "hf"), "tf1", str(root / "tf1"))
    return model, str(root / "hf"), str(root / "tf1")


def _export_with_the_script(fmt: str, path: str, spm_model_file: str, export_dir: str) -> None:
    command = command_line(
        "export",
        "--format=tfhub",
        f"--checkpoint_format={fmt}",
        f"--checkpoint={path}",
        f"--spm_model_file={spm_model_file}",
        f"--export_dir={export_dir}",
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = commands.run(command, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"Exported {export_dir}" in result.stdout


@pytest.mark.slow  # An export each (hf: the script, in a subprocess): 10-40 s on 2 cores.
@pytest.mark.parametrize("fmt", ["hf", "tf1"])
def test_export_of_a_converted_checkpoint_gives_its_outputs(
    fmt, checkpoints, tmp_path, tiny_model_file
):
    torch_model, hf_dir, tf1_dir = checkpoints
    export_dir = str(tmp_path / "hub")
    if fmt == "hf":
        _export_with_the_script(fmt, hf_dir, tiny_model_file, export_dir)
    else:
        export_tfhub(export_dir, ExportSource(load_model("tf1", tf1_dir), tiny_model_file))
    encoder = tf.saved_model.load(os.path.join(export_dir, "encoder"))
    batch = padded_batch()
    expected = torch_outputs(torch_model, batch)
    positions = np.array([[1, 4, 0], [2, 7, 3], [0, 1, 2]], "int32")
    got = encoder.mlm(
        {
            "input_word_ids": tf.constant(batch["input_ids"], tf.int32),
            "input_mask": tf.constant(batch["input_mask"], tf.int32),
            "input_type_ids": tf.constant(batch["segment_ids"], tf.int32),
            "masked_lm_positions": tf.constant(positions),
        }
    )
    mlm_logits = np.take_along_axis(expected["mlm_logits"], positions[:, :, None], axis=1)
    for name, value in (
        ("sequence_output", expected["sequence_output"]),
        ("pooled_output", expected["pooled_output"]),
        ("mlm_logits", mlm_logits),
    ):
        assert np.abs(value).max() > 0.1, name  # Not trivially small.
        np.testing.assert_allclose(got[name], value, atol=TOLERANCE, rtol=0, err_msg=name)
