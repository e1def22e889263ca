"""The old name of `albert-tf export-litert` (albert_tf/commands/export_litert.py)."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("export-litert", sys.argv)
