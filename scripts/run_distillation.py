"""The script name of `albert-tf distill` (albert_tf/commands/distill.py), beside the others."""

import sys

from albert_tf.commands import run_command

if __name__ == "__main__":
    run_command("distill", sys.argv)
