"""The old name of `albert-tf tag` (albert_tf/commands/tag.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("tag", sys.argv)
