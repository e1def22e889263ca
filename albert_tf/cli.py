"""`begin` and `run`: how albert_tf's commands start, report user errors and exit.

Importing this module does nothing to the process. The `albert-tf` entry point
(`albert_tf.commands.dispatch`) calls `begin()` before the command loads TensorFlow: unless the
user set `TF_CPP_MIN_LOG_LEVEL` (then nothing is hidden), it sets `TF_CPP_MIN_LOG_LEVEL=3` and
holds stderr in a temporary file, because the lines TensorFlow prints while it loads (CUDA
stubs, oneDNN notices) come before that setting is read; `run` (or interpreter exit) writes the
held output back without TensorFlow's C++ log lines.

A command's module imports no TensorFlow: its flags come from TensorFlow-free modules (the
config dataclasses) and its `main` imports the rest, so `--help` and flag errors answer at once.
`run(main, loads_tensorflow=True)` imports TensorFlow once the flags are parsed, while stderr
is still held, then runs `main`.

`run(main)` runs an absl `main` and turns a `UserError` (albert_tf.errors) into one line on
stderr, `error: <what>, <where>, <what to do>`, and exit status 2; flag parsing errors are
reported the same way. A traceback is shown when `--verbose` is passed or
`ALBERT_TF_VERBOSE=1` is set. Any other exception is a bug and keeps its traceback. `--help`
(`-h`, `--helpshort`, `--helpfull`, `--helpxml`) exits with status 0 and lists every flag
albert_tf defined for the command, those generated from config dataclasses
(albert_tf.config_flags) too.

Example (a command, albert_tf/commands/<name>.py, whose `run()` `albert-tf <name>` calls):
    from absl import flags
    from albert_tf import cli

    flags.DEFINE_string("output_dir", None, "Where the model goes.")

    def main(argv):
        from albert_tf.training.pretrain import train_and_evaluate  # TensorFlow: run time only.

        train_and_evaluate(...)

    def run() -> None:
        cli.run(main, loads_tensorflow=True)

    if __name__ == "__main__":
        run()
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import sys
import tempfile
from collections.abc import Callable

from absl import app, flags

from albert_tf import environment
from albert_tf.errors import UserError, report_user_error

VERBOSE_ENV = "ALBERT_TF_VERBOSE"
USER_ERROR_EXIT_CODE = 2

# `I0000 00:00:1795414814.081485    8721 port.cc:153] ...` and absl's notice before it.
_TF_LOG_LINE = re.compile(
    rb"^([IW]\d{4} \d\d:\d\d:\d+\.\d+ +\d+ [\w.]+:\d+\]|WARNING: All log messages before absl)"
)


class _HeldStderr:
    """File descriptor 2 redirected into a temporary file until `release`."""

    def __init__(self):
        sys.stderr.flush()
        self._saved = os.dup(2)
        self._file = tempfile.TemporaryFile()
        os.dup2(self._file.fileno(), 2)
        self._released = False
        atexit.register(self.release)

    def release(self) -> None:
        """Restores stderr and writes back what was held, minus TensorFlow's C++ log lines."""
        if self._released:
            return
        self._released = True
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._file.seek(0)
        kept = [line for line in self._file if not _TF_LOG_LINE.match(line)]
        self._file.close()
        if kept:
            os.write(2, b"".join(kept))


_ABSL_HELP_FLAGS = ("help", "helpshort", "helpfull", "helpxml")
_held_stderr: _HeldStderr | None = None


def is_help_flag(arg: str) -> bool:
    """Whether `arg` asks for absl's help (`--help`, `-helpfull`, `-?`, ...)."""
    return arg in ("-h", "-?") or (
        arg.startswith("-") and arg.lstrip("-").split("=", 1)[0] in _ABSL_HELP_FLAGS
    )


def begin() -> None:
    """Quiets TensorFlow's start-up (see the module docstring); call before TensorFlow loads.

    Does nothing where the user set `TF_CPP_MIN_LOG_LEVEL`, or when called again.
    """
    global _held_stderr
    if _held_stderr is None and "TF_CPP_MIN_LOG_LEVEL" not in os.environ:
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        _held_stderr = _HeldStderr()


def release_stderr() -> None:
    """Ends the quiet start-up (see the module docstring); later output goes straight out."""
    if _held_stderr is not None:
        _held_stderr.release()


flags.DEFINE_bool(
    "verbose", False, f"Show the traceback of input errors too (or set {VERBOSE_ENV}=1)."
)


def verbose() -> bool:
    """True when the user asked for tracebacks (`--verbose` or `ALBERT_TF_VERBOSE=1`)."""
    from_flag = flags.FLAGS.is_parsed() and flags.FLAGS.verbose
    return bool(from_flag) or environment.switch(VERBOSE_ENV, default="off") == "on"


def _parse_flags(argv: list[str]) -> list[str]:
    # `-h` is what people type first; absl knows `--help` and `-?`.
    argv = [argv[0], *("--help" if arg == "-h" else arg for arg in argv[1:])]
    try:
        return flags.FLAGS(argv)
    except flags.Error as error:
        release_stderr()  # Before the error line, which must not wait for the exit.
        report_user_error(UserError(str(error), fix=f"see {os.path.basename(argv[0])} --help"))
        sys.exit(USER_ERROR_EXIT_CODE)
    except SystemExit as exit_:
        # absl's help flags print the help, then exit with status 1: help asked for is success.
        if exit_.code == 1 and any(is_help_flag(arg) for arg in argv[1:]):
            sys.exit(0)
        raise


def _list_generated_flags_in_help() -> None:
    """Makes every flag albert_tf's modules defined a key flag of the program.

    absl's `--help` lists the flags of the main module (named `sys.argv[0]`); the flags a
    command generates from its config (`albert_tf.config_flags`, `albert_tf.finetune.flags`)
    are defined by those modules instead, and would only show under `--helpfull`.
    """
    program = sys.argv[0]
    for module, module_flags in flags.FLAGS.flags_by_module_dict().items():
        if module.startswith("albert_tf.") and module != __name__:
            for flag in module_flags:
                flags.FLAGS.register_key_flag_for_module(program, flag)


def _drop_tensorflow_info(record: logging.LogRecord) -> bool:
    """False for an INFO (or lower) record logged from TensorFlow's own files."""
    from_tensorflow = f"{os.sep}tensorflow{os.sep}" in record.pathname
    return record.levelno >= logging.WARNING or not from_tensorflow


def run(main: Callable[[list[str]], object], loads_tensorflow: bool = False) -> None:
    """`absl.app.run(main)` with albert_tf's error convention (see the module docstring).

    `loads_tensorflow`: `main` uses TensorFlow; it is imported after the flags are parsed and
    before stderr is released, so that its start-up lines are dropped (an import inside `main`
    would print them).
    """

    def guarded_main(argv: list[str]) -> object:
        if loads_tensorflow:
            import tensorflow  # noqa: F401  (after the flags, while stderr is held)

        release_stderr()
        try:
            return main(argv)
        except (UserError, app.UsageError) as error:
            if verbose():
                raise
            report_user_error(error)
            sys.exit(USER_ERROR_EXIT_CODE)

    _list_generated_flags_in_help()
    if _held_stderr is not None:
        # TensorFlow's Python-side INFO lines (signature renames, saver and asset notices)
        # too, unless the user asked for TensorFlow's logs; its warnings still show. TF logs
        # through its own logger and through absl's (which scripts use too: filter by file).
        logging.getLogger("tensorflow").setLevel(logging.WARNING)
        logging.getLogger("absl").addFilter(_drop_tensorflow_info)
    app.run(guarded_main, flags_parser=_parse_flags)
