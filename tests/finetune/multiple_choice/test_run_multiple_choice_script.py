"""`albert-tf choice`: a generic CSV run, and bad input as one error line."""

from __future__ import annotations

import json
import os

import pytest

from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT
from tests.finetune.multiple_choice.conftest import QA_LENGTH, SEQ_LENGTH

pytestmark = pytest.mark.slow  # Runs the script in subprocesses.

HEADER = "id,context,question,answer0,answer1,answer2,label\n"
ROWS = [
    "r1,tom has a cat .,tom has a _ .,cat,dog,bird,0",
    "r2,the sky is blue .,what color ?,red,blue,green,1",
    'r3,"anna drinks tea , hot .",anna drinks _ .,milk,juice,tea,2',
]


def run_script(tmp_path, train_file, *extra):
    return commands.run(
        command_line(
            "choice",
            "--task=generic",
            f"--train_file={train_file}",
            f"--max_seq_length={SEQ_LENGTH}",
            f"--max_qa_length={QA_LENGTH}",
            "--train_batch_size=3",
            "--num_train_epochs=1",
            "--do_train",
            f"--output_dir={tmp_path / 'out'}",
            *extra,
        ),
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        timeout=300,
    )


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_generic_csv_train_eval_predict(tmp_path, tiny_config_file, tiny_model_file):
    train = tmp_path / "train.csv"
    train.write_text(HEADER + "\n".join(ROWS * 4) + "\n")
    result = run_script(
        tmp_path,
        train,
        f"--albert_config_file={tiny_config_file}",
        f"--spm_model_file={tiny_model_file}",
        f"--dev_file={train}",
        f"--test_file={train}",
        "--do_eval",
        "--do_predict",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results = json.loads(result.stdout[result.stdout.index("{") :])
    assert results["train_steps"] == 4 and results["dev/examples"] == 12
    lines = (tmp_path / "out" / "predictions" / "train.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["r1", "r2", "r3"] * 4


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_bad_input_is_one_error_line_and_nothing_written(tmp_path, tiny_config_file):
    train = tmp_path / "train.csv"
    train.write_text(HEADER + ROWS[0] + "\n" + ROWS[1].replace(",1", ",7") + "\n")
    result = run_script(tmp_path, train, f"--albert_config_file={tiny_config_file}")
    assert result.returncode == 2
    assert f"error: label 7 is out of range: 3 options (0-2), {train}:3" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()
