"""`albert-tf data` and `albert-tf data-stats`, end to end on a slice of data/sample.txt."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT


def _run(command: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return commands.run(
        command_line(command, *args),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.slow  # Three subprocesses with TensorFlow.
def test_create_then_stats(tmp_path, small_corpus, small_model_file):
    output_dir = tmp_path / "out"
    flags = [
        f"--input_file={small_corpus}",
        f"--output_dir={output_dir}",
        f"--spm_model_file={small_model_file}",
        "--vocab_file=unused.vocab",
        "--max_seq_length=64",
        "--dupe_factor=1",
        "--num_output_shards=2",
    ]
    created = _run("data", *flags)
    assert created.returncode == 0, created.stderr
    manifest = json.loads((output_dir / "manifest.json").read_text())
    assert manifest["options"]["max_predictions_per_seq"] == 20  # original default
    refused = _run("data", *flags)
    assert refused.returncode == 2 and "--overwrite" in refused.stderr
    stats = _run(
        "data-stats",
        f"--input_file={output_dir}/part-*",
        f"--spm_model_file={small_model_file}",
        "--json",
    )
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["instances"] == manifest["statistics"]["instances"]
