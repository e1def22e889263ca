"""The old name of `albert-tf pretrain` (albert_tf/commands/pretrain.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("pretrain", sys.argv)
