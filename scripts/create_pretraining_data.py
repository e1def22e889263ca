"""The old name of `albert-tf data` (albert_tf/commands/data.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("data", sys.argv)
