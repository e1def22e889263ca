"""A two-cell experiment end to end: outputs, rerun without work, resume after SIGKILL."""

from __future__ import annotations

import csv
import json
import os
import signal
import time

import pytest

from albert_tf.errors import UserError
from albert_tf.experiments.runner import RESULT_FILE, run_experiment
from albert_tf.experiments.scale import SCALES
from albert_tf.runtime import Runtime
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT, SAMPLE_TEXT
from tests.experiments.conftest import TEST_SCALE, TWO_CELLS, experiment_inputs
from tests.tensorboard_events import read_hparams, read_scalars

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Columns that legitimately differ between runs.
RUN_DEPENDENT = {"wall_seconds", "resumed"}


def _read_csv(path: str) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow  # Needs the two-cell experiment (~30 s).
def test_one_tensorboard_run_per_cell_with_its_hparams_and_metrics(two_cell_experiment):
    experiment_dir, _ = two_cell_experiment
    runs = os.path.join(experiment_dir, "tensorboard")
    assert sorted(os.listdir(runs)) == sorted(TWO_CELLS)
    for cell in TWO_CELLS:
        row = json.load(open(os.path.join(experiment_dir, "cells", cell, RESULT_FILE)))
        written = read_hparams(os.path.join(runs, cell))
        assert written["group_name"] == cell
        hparams = written["hparams"]
        assert hparams["sentence_objective"] == row["sentence_objective"] == cell
        assert hparams["sharing"] == row["sharing"]
        assert hparams["num_train_steps"] == TEST_SCALE.num_train_steps
        assert hparams["hidden_size"] == row["hidden_size"]
        scalars = read_scalars(os.path.join(runs, cell))
        metric_names = [tag for _, tag in written["metrics"]]
        assert {"sop_head_accuracy", "downstream_accuracy"} <= set(metric_names)
        assert set(metric_names) == set(scalars)  # The dashboard's columns, all written.
        for name in metric_names:
            assert scalars[name] == pytest.approx(row[name], rel=1e-6), name


@pytest.mark.slow  # The two-cell experiment: two pretraining cells and fine-tuning.
def test_writes_csv_markdown_and_plots(two_cell_experiment):
    experiment_dir, result = two_cell_experiment
    assert result.ran == list(TWO_CELLS)
    rows = _read_csv(os.path.join(experiment_dir, "results.csv"))
    assert [row["cell"] for row in rows] == list(TWO_CELLS)
    for row in rows:
        assert int(row["num_train_steps"]) == TEST_SCALE.num_train_steps
        assert int(row["parameters"]) > 0
        for name in ("mlm", "nsp_head", "nsp_probe", "sop_head", "sop_probe"):
            assert 0.0 <= float(row[f"{name}_accuracy"]) <= 1.0
            assert float(row[f"{name}_accuracy_se"]) > 0.0
        assert float(row["sop_eval_records"]) == TEST_SCALE.eval_records
        assert 0.0 < float(row["downstream_accuracy"]) < 1.0
        assert float(row["downstream_examples"]) == 96  # The dev slice.
    markdown = open(os.path.join(experiment_dir, "results.md"), encoding="utf-8").read()
    assert "| cell | objective |" in markdown
    assert "90.5" in markdown and "86.5" in markdown  # the paper's figures beside ours
    assert "downstream (dev)" in markdown
    assert "Majority-class baseline on the scored records: NSP" in markdown
    for name in ("learning_curves", "parameters_vs_accuracy", "layer_transitions"):
        path = os.path.join(experiment_dir, f"{name}.png")
        with open(path, "rb") as handle:
            assert handle.read(8) == PNG_MAGIC
        assert os.path.getsize(path) > 10_000
    layers = _read_csv(os.path.join(experiment_dir, "layer_transitions.csv"))
    assert len(layers) == len(TWO_CELLS) * TEST_SCALE.num_hidden_layers
    # The learning curves come from the run's own logs.
    sop = json.load(open(os.path.join(experiment_dir, "cells", "sop", RESULT_FILE)))
    steps = [step for step, _ in sop["curves"]["masked_lm_accuracy"]]
    assert steps == list(range(10, TEST_SCALE.num_train_steps + 1, 10))


@pytest.mark.slow  # Reads the two-cell experiment.
def test_rerun_does_no_work(two_cell_experiment, tiny_model_file, downstream):
    experiment_dir, _ = two_cell_experiment
    results = [os.path.join(experiment_dir, "cells", c, RESULT_FILE) for c in TWO_CELLS]
    before = [os.stat(path).st_mtime_ns for path in results]
    checkpoints = sorted(os.listdir(os.path.join(experiment_dir, "cells", "sop", "pretrain")))
    again = run_experiment(
        "sentence_objective",
        experiment_dir,
        experiment_inputs(tiny_model_file),
        TEST_SCALE,
        only_cells=TWO_CELLS,
        downstream=downstream,
        runtime=Runtime.for_machine(),
    )
    assert again.ran == []
    assert [os.stat(path).st_mtime_ns for path in results] == before
    assert sorted(os.listdir(os.path.join(experiment_dir, "cells", "sop", "pretrain"))) == (
        checkpoints
    )


@pytest.mark.slow  # Reads the two-cell experiment.
def test_other_settings_in_the_same_directory_are_refused(
    two_cell_experiment, tiny_model_file, downstream
):
    experiment_dir, _ = two_cell_experiment
    with pytest.raises(UserError, match="scale"):
        run_experiment(
            "sentence_objective",
            experiment_dir,
            experiment_inputs(tiny_model_file),
            TEST_SCALE.replace(num_train_steps=7),
            only_cells=TWO_CELLS,
            downstream=downstream,
            runtime=Runtime.for_machine(),
        )


def _command(experiment_dir: str, spm_model_file: str) -> list[str]:
    return command_line(
        "experiment",
        "--preset=sentence_objective",
        "--scale=tiny",
        f"--num_train_steps={TEST_SCALE.num_train_steps}",
        f"--cells={TWO_CELLS[0]}",  # one cell: enough to kill, and quicker
        f"--input_file={SAMPLE_TEXT}",
        f"--eval_file={SAMPLE_TEXT}",
        f"--spm_model_file={spm_model_file}",
        f"--output_dir={experiment_dir}",
    )


def _latest_step(workdir: str) -> int:
    state = os.path.join(workdir, "checkpoint")
    if not os.path.exists(state):
        return 0
    text = open(state, encoding="utf-8").read()
    return int(text.split('"')[1].rsplit("-", 1)[1])


@pytest.mark.slow  # Two processes run a cell.
def test_killed_mid_cell_then_rerun_gives_the_same_results(
    two_cell_experiment, tiny_model_file, tmp_path
):
    reference_dir, _ = two_cell_experiment
    experiment_dir = str(tmp_path / "exp")
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    # Without the downstream column: the kill lands in pretraining, whose every result
    # (accuracies, probes, losses) is compared below; the column runs after it, unchanged.
    command = _command(experiment_dir, tiny_model_file)
    workdir = os.path.join(experiment_dir, "cells", TWO_CELLS[0], "pretrain")
    process = commands.start(command, str(tmp_path), env=env)
    try:
        deadline = time.monotonic() + 240
        while _latest_step(workdir) == 0:
            assert process.poll() is None, "the run ended before its first checkpoint"
            assert time.monotonic() < deadline, "no checkpoint within 240 s"
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=60)
    killed_at = _latest_step(workdir)
    assert 0 < killed_at < TEST_SCALE.num_train_steps  # killed mid-training
    assert not os.path.exists(os.path.join(workdir, "..", RESULT_FILE))

    rerun = commands.run(command, env=env, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert "Resumed from" in rerun.stderr

    want = _read_csv(os.path.join(reference_dir, "results.csv"))[0]
    (have,) = _read_csv(os.path.join(experiment_dir, "results.csv"))
    assert have["resumed"] == "True" and want["resumed"] == "False"
    assert not have.get("downstream_accuracy") and want["downstream_accuracy"]
    compared = {column for column in want if not column.startswith("downstream_")}
    assert {"mlm_accuracy", "nsp_probe_accuracy", "sop_head_accuracy"} <= compared
    for column in compared - RUN_DEPENDENT:
        assert have[column] == want[column], column


def test_model_size_preset_needs_no_data(tmp_path):
    result = run_experiment(
        "model_size", str(tmp_path / "sizes"), None, SCALES["cpu"], runtime=Runtime.for_machine()
    )
    markdown = open(result.files[1], encoding="utf-8").read()
    assert "| ALBERT-base | 768 | 12 | 128 | all_shared | 11,683,584 | 12M | 12M |" in markdown
    assert "| BERT-base | 768 | 12 | 768 | not_shared | 109,081,344 | 108M | 108M |" in markdown


def test_training_preset_without_inputs_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="input_file"):
        run_experiment(
            "sharing", str(tmp_path / "x"), None, SCALES["tiny"], runtime=Runtime.for_machine()
        )
