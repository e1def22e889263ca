"""The old name of `albert-tf experiment` (albert_tf/commands/experiment.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("experiment", sys.argv)
