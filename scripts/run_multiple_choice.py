"""The old name of `albert-tf choice` (albert_tf/commands/choice.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("choice", sys.argv)
