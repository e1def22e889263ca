"""`albert-tf` command lines as the tests run them: `python -m albert_tf.commands COMMAND`.

The same dispatcher as the console script (`albert_tf.commands.dispatch.main`), run with this
interpreter so that the checkout under test (PYTHONPATH) is the package that runs.
"""

from __future__ import annotations

import sys


def command_line(command: str, *args: str) -> list[str]:
    """The argv of `albert-tf COMMAND ARGS...`."""
    return [sys.executable, "-m", "albert_tf.commands", command, *args]
