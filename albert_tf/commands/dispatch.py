"""`albert-tf COMMAND [flags]`: the console entry point, one command per pipeline stage.

Each command is a module of this package (`albert_tf/commands/<command>.py`, with `-` written
`_`) that defines its absl flags, its absl `main` and `run()`, which parses `sys.argv` and runs
`main` through `albert_tf.cli.run` (as the module's `if __name__ == "__main__"` block does).
absl flags are process-wide (two commands' flags would clash), so the dispatcher imports only
the chosen command, after `albert_tf.cli.begin()` (the quiet start-up must come before
TensorFlow loads), makes its docstring the program's (absl's `--help` prints the main module's
docstring, then the command's flags) and calls its `run()`: errors follow `albert_tf.cli`'s
convention (one `error:` line, exit status 2). An alias (`ALIASES`) runs the command it names.
`python -m albert_tf.commands COMMAND ...` is the same command line.

This package is the top of the import graph: nothing else in albert_tf imports it.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from albert_tf import __version__

PROGRAM = "albert-tf"
USAGE_ERROR_EXIT_CODE = 2  # albert_tf.cli.USER_ERROR_EXIT_CODE, without importing cli early.

# In pipeline order, as `albert-tf --help` lists them.
COMMANDS = (
    "quickstart",
    "tokenizer",
    "data",
    "data-stats",
    "pretrain",
    "export",
    "export-litert",
    "convert",
    "classify",
    "span-qa",
    "span-qa-baseline",
    "choice",
    "tag",
    "distill",
    "experiment",
    "analyze-layers",
)
# Other names of commands, run as the command they name and listed as such by `--help`: the
# span QA commands under the name of the data set they read (`albert-tf squad` is `span-qa`).
ALIASES = {"squad": "span-qa", "squad-baseline": "span-qa-baseline"}
_HELP = ("-h", "--help", "--helpshort", "help")


def module_name(command: str) -> str:
    """The module of `command`, e.g. `albert_tf.commands.data_stats` for `data-stats`."""
    return f"{__package__}.{command.replace('-', '_')}"


def summary(command: str) -> str:
    """The first line of `command`'s docstring, read without importing the module (that
    would define its flags and load TensorFlow)."""
    spec = importlib.util.find_spec(module_name(command))
    with open(spec.origin, encoding="utf-8") as source:
        docstring = ast.get_docstring(ast.parse(source.read())) or ""
    return docstring.split("\n", 1)[0]


def usage() -> str:
    """`albert-tf --help`: what the program is, one line per command and one per alias."""
    width = max(len(command) for command in (*COMMANDS, *ALIASES))
    lines = [
        f"usage: {PROGRAM} COMMAND [flags]",
        "",
        f"ALBERT for TensorFlow 2 and Keras 3 (albert_tf {__version__}): train a tokenizer, build",
        "pretraining data, pretrain, export, convert and fine-tune.",
        "",
        "commands:",
        *(f"  {command:<{width}}  {summary(command)}" for command in COMMANDS),
        "",
        "aliases:",
        *(f"  {alias:<{width}}  same as {command}" for alias, command in ALIASES.items()),
        "",
        f"`{PROGRAM} COMMAND --help` lists the command's flags; `--verbose` on any command shows",
        "the traceback of an input error.",
    ]
    return "\n".join(lines)


def run_command(command: str, argv: Sequence[str]) -> None:
    """Runs `command` with `sys.argv = argv`, as the program (see the module docstring).

    `argv[0]` is the program name the command's help and errors show (e.g. `albert-tf data`).
    The command exits through `sys.exit` (absl's `app.run`).
    """
    from albert_tf import cli  # absl: `albert-tf --help` answers without it.

    cli.begin()  # First: quiets TensorFlow's C++ logs before it loads.

    module = importlib.import_module(module_name(command))
    sys.argv = list(argv)
    sys.modules["__main__"].__doc__ = module.__doc__  # What absl's `--help` prints first.
    module.run()


def main(argv: Sequence[str] | None = None) -> int:
    """The `albert-tf` console script: `albert-tf COMMAND [flags]`; returns the exit status."""
    args = list(sys.argv if argv is None else argv)[1:]
    if not args or args[0] in _HELP:
        print(usage(), file=sys.stdout if args else sys.stderr)
        return 0 if args else USAGE_ERROR_EXIT_CODE
    if args[0] == "--version":
        print(f"{PROGRAM} {__version__}")
        return 0
    command = ALIASES.get(args[0], args[0])
    if command not in COMMANDS:
        return _unknown_command(command)
    run_command(command, [f"{PROGRAM} {args[0]}", *args[1:]])
    return 0


def _unknown_command(command: str) -> int:
    from albert_tf.errors import UserError, report_user_error  # Not loaded for `--help`.

    report_user_error(
        UserError(
            f"unknown command {command!r}",
            fix=f"choose one of {', '.join(COMMANDS)} (see {PROGRAM} --help)",
        )
    )
    return USAGE_ERROR_EXIT_CODE
