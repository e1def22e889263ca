"""The old name of `albert-tf analyze-layers` (albert_tf/commands/analyze_layers.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("analyze-layers", sys.argv)
