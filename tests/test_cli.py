"""cli: entry points keep TensorFlow's log lines out of the output unless asked for them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO_ROOT

# A script that starts through cli.run and makes TensorFlow log (C++ at start-up, Python INFO).
_SCRIPT = textwrap.dedent(
    """
    import logging
    from albert_tf import cli
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


def test_the_test_process_never_imports_cli():
    # It would quiet this process's stderr and mark every subprocess's TensorFlow logs as
    # asked for (conftest.py's collect_ignore); scripts import it in their own process.
    assert "albert_tf.cli" not in sys.modules
