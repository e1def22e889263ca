"""`run`: the one way albert_tf's entry points start, report user errors and exit.

Import this module before anything that imports TensorFlow: it sets `TF_CPP_MIN_LOG_LEVEL=2`
(unless the user set it) so TensorFlow's C++ start-up notices (CUDA stubs, oneDNN) stay out of
the output. `run(main)` then runs an absl `main` and turns a `UserError` (albert_tf.errors) into
one line on stderr, `error: <what>, <where>, <what to do>`, and exit status 2; flag parsing
errors are reported the same way. A traceback is shown when `--verbose` is passed or
`ALBERT_TF_VERBOSE=1` is set. Any other exception is a bug and keeps its traceback.

Example (a script):
    from absl import flags
    from albert_tf import cli  # first: quiets TensorFlow's C++ logs before it loads
    from albert_tf.data.builder import build_pretraining_data

    def main(argv):
        build_pretraining_data(...)

    if __name__ == "__main__":
        cli.run(main)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from absl import app, flags

from albert_tf.errors import UserError

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

VERBOSE_ENV = "ALBERT_TF_VERBOSE"
USER_ERROR_EXIT_CODE = 2

flags.DEFINE_bool(
    "verbose", False, f"Show the traceback of input errors too (or set {VERBOSE_ENV}=1)."
)


def verbose() -> bool:
    """True when the user asked for tracebacks (`--verbose` or `ALBERT_TF_VERBOSE=1`)."""
    from_flag = flags.FLAGS.is_parsed() and flags.FLAGS.verbose
    return bool(from_flag) or os.environ.get(VERBOSE_ENV, "") not in ("", "0")


def report_user_error(error: BaseException) -> None:
    """Prints `error: <message>` as one line on stderr (newlines folded)."""
    message = " ".join(str(error).split())
    print(f"error: {message}", file=sys.stderr, flush=True)


def _parse_flags(argv: list[str]) -> list[str]:
    try:
        return flags.FLAGS(argv)
    except flags.Error as error:
        report_user_error(UserError(str(error), fix=f"see {os.path.basename(argv[0])} --help"))
        sys.exit(USER_ERROR_EXIT_CODE)


def run(main: Callable[[list[str]], object]) -> None:
    """`absl.app.run(main)` with albert_tf's error convention (see the module docstring)."""

    def guarded_main(argv: list[str]) -> object:
        try:
            return main(argv)
        except (UserError, app.UsageError) as error:
            if verbose():
                raise
            report_user_error(error)
            sys.exit(USER_ERROR_EXIT_CODE)

    app.run(guarded_main, flags_parser=_parse_flags)
