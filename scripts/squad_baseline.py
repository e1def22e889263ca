"""The old name of `albert-tf span-qa-baseline` (albert_tf/commands/span_qa_baseline.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("span-qa-baseline", sys.argv)
