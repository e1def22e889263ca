"""The old name of `albert-tf classify` (albert_tf/commands/classify.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("classify", sys.argv)
