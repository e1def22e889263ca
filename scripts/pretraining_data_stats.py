"""The old name of `albert-tf data-stats` (albert_tf/commands/data_stats.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("data-stats", sys.argv)
