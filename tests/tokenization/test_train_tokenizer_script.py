"""`albert-tf tokenizer` runs end to end and writes .model and .vocab."""

import os

from albert_tf.tokenization.model_proto import load_albert_model_proto
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT, SAMPLE_TEXT


def test_script_writes_model_and_vocab(tmp_path):
    prefix = tmp_path / "out" / "spm"
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    result = commands.run(
        command_line(
            "tokenizer",
            f"--input_files={SAMPLE_TEXT},{SAMPLE_TEXT}",
            f"--model_prefix={prefix}",
            "--vocab_size=400",
            "--sample_size=2000",
            "--seed=7",
        ),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"Wrote {prefix}.model and {prefix}.vocab" in result.stdout
    assert sorted(os.listdir(prefix.parent)) == ["spm.model", "spm.vocab"]
    load_albert_model_proto(f"{prefix}.model")


def test_script_reports_missing_input(tmp_path):
    result = commands.run(
        command_line(
            "tokenizer",
            f"--input_files={tmp_path}/none_*.txt",
            f"--model_prefix={tmp_path}/m",
        ),
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        timeout=120,
    )
    assert result.returncode != 0
    assert "matches no file" in result.stderr
