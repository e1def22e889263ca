"""The command line: `albert-tf COMMAND [flags]`, one command per pipeline stage.

`albert_tf.commands.dispatch` is the console entry point; each other module of this package
is one command (see the dispatcher's docstring). The top of the import graph: no other
albert_tf package imports this one.
"""

from albert_tf.commands.dispatch import COMMANDS, main, run_command

__all__ = ["COMMANDS", "main", "run_command"]
