"""The old name of `albert-tf quickstart` (albert_tf/commands/quickstart.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("quickstart", sys.argv)
