"""`albert-tf tag`: a run from flags, and bad input as one error line, nothing written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.tagging.tagging_task import run_tagging
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT
from tests.finetune.conftest import write_lines
from tests.finetune.tagging.conftest import SEQ_LENGTH

pytestmark = pytest.mark.slow  # Runs the script in subprocesses.


def run_script(*flags: str) -> subprocess.CompletedProcess:
    return commands.run(
        command_line("tag", *flags),
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        timeout=300,
    )


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_script_trains_on_jsonl_and_evaluates(tmp_path, tiny_config_file, tiny_model_file):
    lines = [
        json.dumps(
            {"tokens": ["john", "lives", "in", "paris"], "tags": ["S-PER", "O", "O", "S-LOC"]}
        )
    ] * 8
    write_lines(tmp_path / "data" / "train.jsonl", lines)
    write_lines(tmp_path / "data" / "dev.jsonl", lines[:2])
    output_dir = tmp_path / "out"
    result = run_script(
        f"--data_dir={tmp_path / 'data'}",
        "--train_file=train.jsonl",
        "--dev_file=dev.jsonl",
        "--tag_scheme=iobes",
        f"--albert_config_file={tiny_config_file}",
        f"--spm_model_file={tiny_model_file}",
        f"--max_seq_length={SEQ_LENGTH}",
        "--train_batch_size=4",
        "--num_train_epochs=1",
        "--do_train",
        "--do_eval",
        f"--output_dir={output_dir}",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results = json.loads(result.stdout[result.stdout.index("{") :])
    assert results["train_steps"] == 2 and results["dev/sentences"] == 2
    assert results["baseline/f1"] == 1.0  # Memorized: the same sentence.
    task = json.load(open(output_dir / "task.json"))
    assert task["tag_scheme"] == "iobes" and task["labels"] == ["O", "S-LOC", "S-PER"]


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
@pytest.mark.parametrize(
    "file_name, lines, message",
    [
        ("dev.txt", ["john B-PER", "paris", ""], "dev.txt:2"),  # No tag column.
        ("dev.txt", ["john B-PER", "paris B-CITY", ""], "tag 'B-CITY' is not among"),
        ("train.txt", ["john B-PER", "smith E-PER", ""], "prefix 'E' is not part of scheme"),
    ],
)
def test_bad_input_is_one_error_line_and_nothing_is_written(
    tmp_path, tagging_dir, tiny_config_file, tiny_model_file, file_name, lines, message
):
    data_dir = tmp_path / "data"
    shutil.copytree(tagging_dir, data_dir)
    write_lines(data_dir / file_name, lines)
    output_dir = tmp_path / "out"
    flags = [
        f"--data_dir={data_dir}",
        f"--albert_config_file={tiny_config_file}",
        f"--spm_model_file={tiny_model_file}",
        f"--max_seq_length={SEQ_LENGTH}",
        "--do_train",
        "--do_eval",
        f"--output_dir={output_dir}",
    ]
    result = run_script(*flags)
    assert result.returncode == 2, result.stderr[-3000:]
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error_lines) == 1 and message in error_lines[0], result.stderr[-2000:]
    assert not output_dir.exists()


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
def test_eval_only_with_a_bad_dev_file_leaves_the_run_untouched(
    tagging_run, tagging_config, tmp_path
):
    output_dir, _ = tagging_run
    before = {
        name: os.path.getmtime(os.path.join(output_dir, name)) for name in os.listdir(output_dir)
    }
    bad_dev = write_lines(tmp_path / "dev.txt", ["paris B-LOC", "york I-TOWN", ""])
    config = tagging_config.replace(do_train=False, do_predict=False, dev_file=bad_dev)
    with pytest.raises(UserError, match=r"tag 'I-TOWN' is not among .*dev.txt:2"):
        run_tagging(config, output_dir)
    after = {
        name: os.path.getmtime(os.path.join(output_dir, name)) for name in os.listdir(output_dir)
    }
    assert after == before
