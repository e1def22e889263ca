"""The old name of `albert-tf squad` (albert_tf/commands/squad.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("squad", sys.argv)
