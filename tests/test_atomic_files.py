"""Atomic output directories: a killed writer's temp directory is removed by the next writer,
a live writer's is not."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time

import pytest

from albert_tf.atomic_files import (
    ABANDONED_AFTER_SECONDS,
    atomic_output_directory,
    remove_abandoned_temp_dirs,
)

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Writes into the temp directory of `argv[1]`, says so, then waits to be killed (or ended).
_WRITER = (
    "import os, sys, time; from albert_tf.atomic_files import atomic_output_directory\n"
    "with atomic_output_directory(sys.argv[1]) as d:\n"
    "    open(os.path.join(d, 'part'), 'w').write('x' * 1000)\n"
    "    print('writing', flush=True); time.sleep(60)\n"
)


def _start_writer(output: str) -> subprocess.Popen:
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, output],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": _ROOT},
        text=True,
    )
    assert writer.stdout.readline().strip() == "writing"
    return writer


def _temp_dirs(parent, name: str = "out") -> list[str]:
    return sorted(entry for entry in os.listdir(parent) if entry.startswith(f".tmp-{name}-"))


def _age(parent, seconds: float = ABANDONED_AFTER_SECONDS + 5) -> None:
    """Makes every temp directory in `parent` look `seconds` old."""
    then = time.time() - seconds
    for entry in _temp_dirs(parent):
        os.utime(os.path.join(parent, entry), (then, then))


def test_a_killed_writers_temp_directory_is_removed_by_the_next_writer(tmp_path, caplog):
    output = str(tmp_path / "out")
    writer = _start_writer(output)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    (left,) = _temp_dirs(tmp_path)
    assert not os.path.exists(output)
    _age(tmp_path)

    with caplog.at_level(logging.WARNING), atomic_output_directory(output) as directory:
        open(os.path.join(directory, "done"), "w").close()

    assert _temp_dirs(tmp_path) == []
    assert os.listdir(output) == ["done"]
    (line,) = [record.getMessage() for record in caplog.records]  # Said in one line.
    assert "killed writers" in line and left in line


def test_a_live_writers_temp_directory_is_kept(tmp_path):
    writer = _start_writer(str(tmp_path / "out"))
    try:
        _age(tmp_path)
        assert remove_abandoned_temp_dirs(str(tmp_path), ".tmp-out-") == []
        (kept,) = _temp_dirs(tmp_path)
        assert os.listdir(tmp_path / kept) == ["part"]
    finally:
        writer.kill()
        writer.wait()


@pytest.mark.parametrize("age", [0.0, ABANDONED_AFTER_SECONDS + 5])
def test_only_old_unlocked_temp_directories_of_that_output_go(tmp_path, age):
    # A young one may belong to a writer between creating and locking it.
    names = {".tmp-out-abc", ".tmp-outer-abc", ".tmp-other-abc"}
    for name in names:
        os.mkdir(tmp_path / name)
    then = time.time() - age
    for name in os.listdir(tmp_path):
        os.utime(tmp_path / name, (then, then))

    removed = remove_abandoned_temp_dirs(str(tmp_path), ".tmp-out-")

    expected = [str(tmp_path / ".tmp-out-abc")] if age else []
    assert removed == expected
    assert set(os.listdir(tmp_path)) == names - {os.path.basename(p) for p in removed}
