"""`albert-tf distill` refuses bad input with one `error:` line before anything is written: a
teacher that is not a finished run, a student no smaller than the teacher, a family it cannot
distill, an unlabeled file that is missing, empty or of the wrong layout. The teacher is a
saved untrained task model (`untrained_teacher`)."""

from __future__ import annotations

import os

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.distillation.students import student_config
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT
from tests.finetune.conftest import relabelled_run


@pytest.mark.slow  # Over 5 s: eight command lines (the first starts the command server).
def test_bad_input_fails_with_one_line_before_any_write(untrained_teacher, tiny_sst2_dir, tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "blank.txt").write_text("\n  \n")
    (tmp_path / "pairs.txt").write_text("a good film\tand a second text\nno tab here\n")
    teacher = [f"--teacher={untrained_teacher}", "--student_layers=1"]
    data = [f"--data_dir={tiny_sst2_dir}", "--max_seq_length=16"]
    pair_teacher = relabelled_run(untrained_teacher, str(tmp_path / "mrpc"), is_pair=True)
    span_qa_teacher = relabelled_run(untrained_teacher, str(tmp_path / "sq"), family="span_qa")
    cases = {
        "not a finished fine-tuning run": [f"--teacher={tmp_path / 'empty'}", "--student_layers=1"],
        "larger than the teacher": [f"--teacher={untrained_teacher}", "--student_layers=3"],
        "the same shape as the teacher": [f"--teacher={untrained_teacher}"],
        "span_qa task family cannot be distilled": [
            f"--teacher={span_qa_teacher}",
            "--student_layers=1",
        ],
        "missing.txt": [*teacher, *data, f"--unlabeled_file={tmp_path / 'missing.txt'}"],
        "the unlabeled file holds no text": [
            *teacher,
            *data,
            f"--unlabeled_file={tmp_path / 'blank.txt'}",
        ],
        "pairs.txt:2": [
            f"--teacher={pair_teacher}",
            "--student_layers=1",
            *data,
            f"--unlabeled_file={tmp_path / 'pairs.txt'}",
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
        assert result.returncode == 2, (message, result.stderr[-2000:])
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and message in errors[0], (message, result.stderr[-2000:])
        assert not output_dir.exists(), message


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
