"""The old name of `albert-tf export` (albert_tf/commands/export.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("export", sys.argv)
