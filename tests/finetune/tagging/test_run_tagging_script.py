"""`albert-tf tag`: a CoNLL-2003 run from flags; bad input is one error line, nothing written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.tagging.tagging_task import run_tagging
from albert_tf.runtime import Runtime
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT
from tests.finetune.conftest import write_lines
from tests.finetune.tagging.conftest import SEQ_LENGTH
from tests.finetune.tagging.test_sentences import CONLL2003

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
def test_script_trains_on_conll2003_files_and_writes_conll_predictions(
    tmp_path, tiny_config_file, tiny_model_file
):
    """4 columns, IOB1, -DOCSTART- (CoNLL-2003's layout) from flags: trains, scores and writes
    `word gold predicted` in the scheme of the files. (The JSONL and IOBES readers, which need
    no model, are tests/finetune/tagging/test_sentences.py's.)"""
    write_lines(tmp_path / "data" / "eng.train", CONLL2003 * 3)
    write_lines(tmp_path / "data" / "eng.testa", CONLL2003)
    output_dir = tmp_path / "out"
    result = run_script(
        f"--data_dir={tmp_path / 'data'}",
        "--train_file=eng.train",
        "--dev_file=eng.testa",
        "--tag_scheme=iob1",
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
    assert results["train_steps"] == 2  # int(9 sentences / batches of 4)
    assert results["dev/words"] == 10 and results["dev/found_gold"] == 5  # Paris, Berlin: 2.
    task = json.load(open(output_dir / "task.json"))
    assert task["tag_scheme"] == "iob1"
    assert sorted(task["labels"]) == ["B-LOC", "I-LOC", "I-MISC", "I-ORG", "I-PER", "O"]
    lines = (output_dir / "predictions" / "dev.conll").read_text().splitlines()
    assert lines[0].split(" ")[:2] == ["EU", "I-ORG"] and lines[5] == ""
    assert lines[-2].split(" ")[:2] == ["Berlin", "B-LOC"]


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
        run_tagging(config, output_dir, runtime=Runtime.for_machine())
    after = {
        name: os.path.getmtime(os.path.join(output_dir, name)) for name in os.listdir(output_dir)
    }
    assert after == before
