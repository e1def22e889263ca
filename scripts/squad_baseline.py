"""The old name of `albert-tf squad-baseline` (albert_tf/commands/squad_baseline.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("squad-baseline", sys.argv)
