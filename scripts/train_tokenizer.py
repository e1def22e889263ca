"""The old name of `albert-tf tokenizer` (albert_tf/commands/tokenizer.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("tokenizer", sys.argv)
