"""convert_checkpoint and `albert-tf convert`: chains of formats, atomic outputs."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.convert.convert import build_model, convert_checkpoint, load_model, save_model
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT

CONFIG = AlbertConfig(
    vocab_size=50, embedding_size=8, hidden_size=16, num_hidden_layers=4, num_hidden_groups=2,
    inner_group_num=2, num_attention_heads=2, intermediate_size=24, max_position_embeddings=16,
)  # fmt: skip


def random_model(heads: bool = True, seed: int = 0):
    model = build_model(CONFIG, heads)
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        variable.assign(rng.normal(size=variable.shape).astype("float32"))
    return model


def assert_same_weights(a, b) -> None:
    assert [v.path for v in a.weights] == [v.path for v in b.weights]
    for x, y in zip(a.weights, b.weights, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=x.path)


def test_chain_albert_tf_tf1_hf_albert_tf_is_lossless(tmp_path):
    model = random_model()
    save_model(model, "albert_tf", str(tmp_path / "a"))
    convert_checkpoint("albert_tf", str(tmp_path / "a"), "tf1", str(tmp_path / "t"))
    convert_checkpoint("tf1", str(tmp_path / "t"), "hf", str(tmp_path / "h"))
    convert_checkpoint("hf", str(tmp_path / "h"), "albert_tf", str(tmp_path / "b"))
    assert sorted(os.listdir(tmp_path / "t")) == [
        "albert_config.json", "checkpoint", "model.ckpt-0.data-00000-of-00001",
        "model.ckpt-0.index",
    ]  # fmt: skip
    assert tf.train.latest_checkpoint(str(tmp_path / "t")).endswith("model.ckpt-0")
    assert json.loads((tmp_path / "h" / "config.json").read_text())["architectures"] == [
        "AlbertForPreTraining"
    ]
    assert_same_weights(model, load_model("albert_tf", str(tmp_path / "b")))
    encoder = load_model("albert_tf", str(tmp_path / "b"), heads=False)
    assert type(encoder).__name__ == "AlbertEncoder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "h", "t"]  # No temp dirs.


def test_existing_output_is_refused_then_replaced_with_overwrite(tmp_path):
    first, second = random_model(seed=1), random_model(seed=2)
    output = str(tmp_path / "out")
    save_model(first, "tf1", output)
    with pytest.raises(FileExistsError, match="already exists; pass --overwrite"):
        save_model(second, "tf1", output)
    assert_same_weights(first, load_model("tf1", output))
    save_model(second, "tf1", output, overwrite=True)
    assert_same_weights(second, load_model("tf1", output))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_failed_write_leaves_nothing(tmp_path):
    model = build_model(CONFIG.replace(hidden_act="gelu_exact"), heads=False)
    with pytest.raises(ValueError, match="gelu_exact"):
        save_model(model, "tf1", str(tmp_path / "out"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # Three subprocesses with TensorFlow.
def test_script_converts_and_refuses_existing_output(tmp_path):
    save_model(random_model(heads=False), "tf1", str(tmp_path / "tf1"))
    command = command_line(
        "convert",
        "--from=tf1", "--to=hf", f"--input={tmp_path / 'tf1'}", f"--output={tmp_path / 'hf'}",
    )  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = commands.run(command, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Wrote" in result.stdout
    assert sorted(os.listdir(tmp_path / "hf")) == ["config.json", "model.safetensors"]
    assert_same_weights(
        load_model("tf1", str(tmp_path / "tf1")), load_model("hf", str(tmp_path / "hf"))
    )
    with pytest.raises(FileExistsError):
        convert_checkpoint("tf1", str(tmp_path / "tf1"), "hf", str(tmp_path / "hf"))
