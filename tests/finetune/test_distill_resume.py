"""A distillation killed mid-training (SIGKILL) resumes when its command line is run again, as
every fine-tuning run does: the `Distiller`'s fit continues from `backup/` (the epochs already
trained are not trained again) and the run ends with a student that loads."""

from __future__ import annotations

import json
import os
import signal
import time

import keras
import pytest

from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT

EPOCHS = 6  # Of one step each (8 examples, batches of 8).


def _wait_for(path: str, process, timeout: float = 240) -> None:
    """Until `path` exists (the process still running), polling."""
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        assert process.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, f"no {path} after {timeout} s"
        time.sleep(0.05)


@pytest.mark.slow  # Over 5 s: a distillation run, killed, then run again.
def test_killed_distillation_resumes(untrained_teacher, tiny_sst2_dir, tmp_path):
    output_dir = tmp_path / "student"
    argv = command_line(
        "distill",
        f"--teacher={untrained_teacher}",
        f"--output_dir={output_dir}",
        f"--data_dir={tiny_sst2_dir}",
        "--max_seq_length=16",
        "--student_layers=1",
        "--train_batch_size=8",
        f"--num_train_epochs={EPOCHS}",
        "--do_eval=false",
    )
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    (tmp_path / "killed").mkdir()
    process = commands.start(argv, str(tmp_path / "killed"), env=env)
    first_epoch = output_dir / "checkpoints" / "epoch-01.weights.h5"
    _wait_for(str(first_epoch), process)  # Written after epoch 1's backup.
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=60) == -signal.SIGKILL
    assert not (output_dir / "model.keras").exists()
    trained_before = first_epoch.stat().st_mtime_ns

    result = commands.run(argv, env=env, timeout=300)  # The lock died with the killed run.
    assert result.returncode == 0, result.stderr[-3000:]
    results = json.loads(result.stdout[result.stdout.index("{") :])
    assert results["train_steps"] == EPOCHS
    assert first_epoch.stat().st_mtime_ns == trained_before  # Resumed: epoch 1 not retrained.
    assert (output_dir / "checkpoints" / f"epoch-{EPOCHS:02d}.weights.h5").exists()
    assert json.loads((output_dir / "distillation.json").read_text())["student_shape"]
    student = keras.saving.load_model(output_dir / "model.keras", compile=False)
    assert student.encoder.config.num_hidden_layers == 1
