"""Output locks: a second job fails at once naming the holder; a killed holder frees the lock."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from albert_tf.errors import OutputLockedError, UserError
from albert_tf.output_lock import OutputLock, lock_path, output_lock
from tests import commands
from tests.commands import command_line

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_HOLD = (
    "import sys, time; from albert_tf.output_lock import output_lock\n"
    "with output_lock(sys.argv[1]):\n"
    "    print('locked', flush=True); time.sleep(60)\n"
)


def _start_holder(output: str) -> subprocess.Popen:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, output, "--job=holder"],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": _ROOT},
        text=True,
    )
    assert holder.stdout.readline().strip() == "locked"
    return holder


def test_second_job_fails_with_holder_pid_and_command(tmp_path):
    output = str(tmp_path / "run")
    holder = _start_holder(output)
    try:
        with pytest.raises(OutputLockedError) as raised:
            OutputLock(output).acquire()
        message = str(raised.value)
        assert f"pid {holder.pid} " in message
        assert "--job=holder" in message and output in message
    finally:
        holder.kill()
        holder.wait()


def test_sigkilled_holder_leaves_no_stale_lock(tmp_path):
    output = str(tmp_path / "run")
    holder = _start_holder(output)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert os.path.exists(lock_path(output))  # The file stays, but the kernel freed the lock.
    with output_lock(output) as lock:
        assert lock is not None
        with open(lock_path(output)) as handle:
            assert handle.read().startswith(f"{os.getpid()} ")


# Prints its pid, takes the lock of argv[1] and dies by SIGKILL in the middle of its writes:
# the whole output (an export) or a file and a directory inside it (a fine-tuning run).
_KILLED_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from albert_tf.atomic_files import atomic_output_directory, atomic_output_file
    from albert_tf.output_lock import output_lock

    out, whole = sys.argv[1], sys.argv[2] == "whole"
    print(os.getpid(), flush=True)
    with output_lock(out):
        if whole:
            with atomic_output_directory(out) as temp_dir:
                open(os.path.join(temp_dir, "part"), "w").write("half")
                os.kill(os.getpid(), signal.SIGKILL)
        os.makedirs(os.path.join(out, "best"))
        with (
            atomic_output_file(os.path.join(out, "best", "model.keras")) as temp_file,
            atomic_output_directory(os.path.join(out, "export")) as temp_dir,
        ):
            open(temp_file, "w").write("half")
            os.kill(os.getpid(), signal.SIGKILL)
    """
)


def _kill_writer(output: str, write: str) -> int:
    """Runs `_KILLED_WRITER`; returns the pid it had."""
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_WRITER, output, write],
        env={**os.environ, "PYTHONPATH": _ROOT},
        capture_output=True,
        text=True,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    return int(killed.stdout)


def _temp_names(root) -> list[str]:
    return sorted(
        os.path.relpath(os.path.join(directory, name), root)
        for directory, subdirs, files in os.walk(root)
        for name in subdirs + files
        if name.startswith(".tmp-")
    )


@pytest.mark.parametrize("write", ["inside", "whole"])
def test_a_killed_holders_lock_and_temp_files_are_taken_over_and_said(write, tmp_path, caplog):
    output = str(tmp_path / "run")
    pid = _kill_writer(output, write)
    assert os.path.exists(lock_path(output)) and _temp_names(tmp_path)  # What it left.
    other = tmp_path / f".tmp-{'0' * 32}-my-run"  # Another output's write (my-run), kept.
    other.write_text("being written")

    with caplog.at_level(logging.WARNING), output_lock(output):
        assert _temp_names(tmp_path) == [other.name]
    (line,) = [record.getMessage() for record in caplog.records]
    assert f"took over the lock of pid {pid} (" in line and output in line
    assert f"removed {2 if write == 'inside' else 1} temporary leftover(s)" in line
    assert not os.path.exists(lock_path(output))  # Released as usual.


def test_a_nested_output_held_by_a_live_job_keeps_its_temp_files(tmp_path, caplog):
    output = tmp_path / "experiment"
    _kill_writer(str(output), "inside")
    holder = _start_holder(str(output / "cell"))  # Another job, still writing its own output.
    try:
        (output / "cell").mkdir()
        (output / "cell" / ".tmp-0123-ckpt").write_text("being written")
        (output / ".tmp-cell-0123").mkdir()  # Its own atomic_output_directory, say.
        with caplog.at_level(logging.WARNING), output_lock(str(output)):
            assert _temp_names(output) == [".tmp-cell-0123", "cell/.tmp-0123-ckpt"]
        assert "removed 2 temporary leftover(s)" in caplog.text  # The killed job's.
    finally:
        holder.kill()
        holder.wait()


def test_lock_neither_creates_the_output_nor_lies_in_it(tmp_path):
    output = tmp_path / "a" / "b" / "run"
    with output_lock(str(output)):
        assert not output.exists()
        assert os.path.dirname(lock_path(str(output))) == str(output.parent)
        assert os.path.basename(lock_path(str(output))).startswith(".")
    # Released: the lock file and the directories it had to create are gone.
    assert os.listdir(tmp_path) == []


def test_existing_output_dir_is_left_as_it_was(tmp_path):
    output = tmp_path / "run"
    output.mkdir()
    (output / "ckpt-1.index").write_text("x")
    with output_lock(str(output)):
        pass
    assert sorted(os.listdir(tmp_path)) == ["run"]
    assert os.listdir(output) == ["ckpt-1.index"]


def test_output_under_a_regular_file_is_a_user_error(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(UserError, match="file.txt"):
        OutputLock(str(blocker / "sub" / "run")).acquire()


def test_remote_and_empty_outputs_are_not_locked():
    with output_lock("gs://bucket/run") as lock:
        assert lock is None
    with output_lock("") as lock:
        assert lock is None


def test_directory_output_that_is_a_file_is_refused(tmp_path):
    blocker = tmp_path / "out"
    blocker.write_text("x")
    with pytest.raises(UserError, match="is a file"):
        with output_lock(str(blocker), directory=True):
            pass
    with output_lock(str(blocker)):  # A file output (e.g. a record shard) may exist.
        pass


def test_a_second_data_build_on_a_held_output_fails_and_writes_nothing(tmp_path, tiny_model_file):
    from albert_tf.data.builder import BuilderOptions, build_pretraining_data
    from tests.conftest import SAMPLE_TEXT

    output = str(tmp_path / "records")
    holder = _start_holder(output)  # Stands for a first build still running.
    try:
        options = BuilderOptions(
            input_file=str(SAMPLE_TEXT),
            spm_model_file=tiny_model_file,
            output_dir=output,
            max_seq_length=32,
            dupe_factor=1,
        )
        with pytest.raises(OutputLockedError, match=f"pid {holder.pid} "):
            build_pretraining_data(options)
        assert sorted(os.listdir(tmp_path)) == [".records.lock"]  # The holder's lock only.
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("family", ["span_qa", "multiple_choice", "tagging"])
def test_fine_tuning_families_refuse_a_held_output_dir(family, tmp_path):
    """Each fine-tuning family takes the lock first: a held output dir is refused at once."""
    from albert_tf.finetune.multiple_choice.multiple_choice_config import MultipleChoiceConfig
    from albert_tf.finetune.multiple_choice.multiple_choice_task import run_multiple_choice
    from albert_tf.finetune.span_qa.span_qa_config import SpanQaConfig
    from albert_tf.finetune.span_qa.span_qa_task import run_span_qa
    from albert_tf.finetune.tagging.tagging_config import TaggingConfig
    from albert_tf.finetune.tagging.tagging_task import run_tagging
    from albert_tf.runtime.runtime import Runtime

    run, config = {
        "span_qa": (run_span_qa, SpanQaConfig()),
        "multiple_choice": (run_multiple_choice, MultipleChoiceConfig()),
        "tagging": (run_tagging, TaggingConfig()),
    }[family]
    output = str(tmp_path / "run")
    holder = _start_holder(output)
    try:
        with pytest.raises(OutputLockedError, match=f"pid {holder.pid} "):
            run(config, output, Runtime.plain())
        assert sorted(os.listdir(tmp_path)) == [".run.lock"]
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.slow  # A subprocess with TensorFlow.
def test_span_qa_on_a_held_output_dir_exits_2_naming_the_holder(tmp_path):
    output = str(tmp_path / "squad")
    holder = _start_holder(output)
    try:
        result = commands.run(
            command_line(
                "span-qa",
                f"--output_dir={output}",
                "--do_train",
                "--train_file=train.json",
            ),
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": _ROOT},
            timeout=300,
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
        assert f"pid {holder.pid} " in result.stderr and "--job=holder" in result.stderr
        assert sorted(os.listdir(tmp_path)) == [".squad.lock"]
    finally:
        holder.kill()
        holder.wait()
