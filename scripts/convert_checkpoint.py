"""The old name of `albert-tf convert` (albert_tf/commands/convert.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("convert", sys.argv)
