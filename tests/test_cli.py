"""cli: entry points keep TensorFlow's log lines out of the output unless asked for them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO_ROOT

# A script that starts as `albert-tf` does (`cli.begin()` before TensorFlow loads, then
# `cli.run`) and makes TensorFlow log (C++ at start-up, Python INFO).
_SCRIPT = textwrap.dedent(
    """
    import logging
    from albert_tf import cli
    cli.begin()
    import tensorflow as tf
    from absl import logging as absl_logging

    def main(argv):
        logging.getLogger("tensorflow").info("a TensorFlow Python INFO line")
        # TensorFlow's modules also log through absl (e.g. the signature renames).
        path = "/venv/site-packages/tensorflow/python/saved_model/signature_serialization.py"
        absl_logger = logging.getLogger("absl")
        absl_logger.handle(absl_logger.makeRecord(
            "absl", logging.INFO, path, 1, "a TensorFlow absl INFO line", None, None))
        absl_logging.info("the script's own absl INFO line")
        logging.getLogger("tensorflow").warning("a TensorFlow Python warning")
        print("albert_tf output", float(tf.constant(1.0)))

    cli.run(main)
    """
)


def _run(env_changes: dict) -> str:
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    env.update(env_changes, PYTHONPATH=str(REPO_ROOT))
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout + result.stderr


@pytest.mark.slow  # Two subprocesses with TensorFlow.
def test_tensorflow_logs_are_quiet_by_default_and_shown_when_asked():
    quiet = _run({})
    assert "albert_tf output 1.0" in quiet and "a TensorFlow Python warning" in quiet
    assert "a TensorFlow Python INFO line" not in quiet and "I0000" not in quiet
    assert "a TensorFlow absl INFO line" not in quiet
    assert "the script's own absl INFO line" in quiet
    loud = _run({"TF_CPP_MIN_LOG_LEVEL": "0"})
    assert "a TensorFlow Python INFO line" in loud and "a TensorFlow absl INFO line" in loud


# Imports every albert_tf module (the commands' aside: each defines its flags for its own
# process) and prints what changed in the process.
_IMPORT_ALL = textwrap.dedent(
    """
    import json, os, pkgutil, subprocess, threading, importlib
    def state():
        return {
            "environ": dict(os.environ),
            "fds": sorted(os.listdir("/proc/self/fd")),
            "children": subprocess.run(
                ["ps", "--ppid", str(os.getpid()), "-o", "pid="], capture_output=True, text=True
            ).stdout.split(),
            # TensorFlow's runtime (its thread pools) starts with the first op run.
            "tensorflow_threads": sorted(
                name for name in (
                    open(f"/proc/self/task/{task}/comm").read().strip()
                    for task in os.listdir("/proc/self/task")
                ) if name.startswith("tf_")
            ),
        }
    import albert_tf, tensorflow  # TensorFlow's own start-up is not albert_tf's doing.
    before = state()
    names = [m.name for m in pkgutil.walk_packages(albert_tf.__path__, "albert_tf.")
             if not m.name.startswith("albert_tf.commands.")]
    for name in names:
        importlib.import_module(name)
    after = state()
    changed = {k for k in set(before["environ"]) | set(after["environ"])
               if before["environ"].get(k) != after["environ"].get(k)}
    print(json.dumps({"modules": len(names), "environ": sorted(changed),
                      "fds": before["fds"] != after["fds"],
                      "children": after["children"][1:],
                      "tensorflow_threads": after["tensorflow_threads"]}))
    """
)


@pytest.mark.slow  # A subprocess imports every module.
def test_importing_any_module_changes_nothing_in_the_process(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    env.update(PYTHONPATH=str(REPO_ROOT), XDG_CACHE_HOME=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL], capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["modules"] > 150
    untouched = {"environ": [], "fds": False, "children": [], "tensorflow_threads": []}
    assert report == {"modules": report["modules"], **untouched}
    assert not (tmp_path / "albert_tf").exists()  # No cache of albert_tf's written.
