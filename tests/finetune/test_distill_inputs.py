"""`albert-tf distill` refuses bad input with one `error:` line before anything is written: a
teacher that is not a finished run, a student no smaller than the teacher, a family it cannot
distill. The teachers are saved untrained task models (`model.keras` + `task.json`)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.distillation.students import student_config
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.models.encoder import AlbertEncoder
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT


@pytest.fixture(scope="module")
def teacher_dir(tmp_path_factory, tiny_config, tiny_model_file) -> str:
    """An untrained 2-layer classifier saved as a finished classification run."""
    directory = tmp_path_factory.mktemp("teacher")
    AlbertClassifier(AlbertEncoder(tiny_config), 2).save(directory / "model.keras")
    shutil.copy(tiny_model_file, directory / "spm.model")
    task = dict(
        family="classification",
        task="sst-2",
        max_seq_length=16,
        do_lower_case=True,
        problem="classification",
        labels=["0", "1"],
        metrics=["accuracy"],
        is_pair=False,
    )
    (directory / "task.json").write_text(json.dumps(task))
    return str(directory)


def _span_qa_teacher(teacher_dir: str, directory: str) -> str:
    """`teacher_dir` relabelled as a span QA run (its family is all that is read first)."""
    shutil.copytree(teacher_dir, directory)
    path = os.path.join(directory, "task.json")
    task = json.load(open(path))
    json.dump({**task, "family": "span_qa"}, open(path, "w"))
    return directory


@pytest.mark.slow  # Over 5 s: three command lines (the first starts the command server).
def test_bad_teachers_and_students_fail_before_any_write(teacher_dir, tmp_path):
    (tmp_path / "empty").mkdir()
    cases = {
        "not a finished fine-tuning run": [f"--teacher={tmp_path / 'empty'}", "--student_layers=1"],
        "larger than the teacher": [f"--teacher={teacher_dir}", "--student_layers=3"],
        "span_qa task family cannot be distilled": [
            f"--teacher={_span_qa_teacher(teacher_dir, str(tmp_path / 'squad'))}",
            "--student_layers=1",
        ],
    }
    for message, flags in cases.items():
        output_dir = tmp_path / "out"
        result = commands.run(
            command_line("distill", *flags, f"--output_dir={output_dir}"),
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
            timeout=120,
        )
        assert result.returncode == 2, result.stderr[-2000:]
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and message in errors[0], result.stderr[-2000:]
        assert not output_dir.exists()


def test_student_config_must_be_smaller(tiny_config):
    assert student_config(tiny_config, layers=1).num_hidden_layers == 1
    small = student_config(tiny_config, overrides=("hidden_size=16", "intermediate_size=32"))
    assert (small.hidden_size, small.intermediate_size) == (16, 32)
    with pytest.raises(UserError, match="the same shape as the teacher"):
        student_config(tiny_config)
    with pytest.raises(UserError, match="hidden_size larger than the teacher"):
        student_config(tiny_config, layers=1, overrides=("hidden_size=64",))
    with pytest.raises(UserError, match="not a shape override"):
        student_config(tiny_config, overrides=("vocab_size=10",))
