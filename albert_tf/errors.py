"""`UserError`: a problem the user can fix, as opposed to a bug in albert_tf.

Entry points (`albert_tf.cli.run`) print a `UserError` as one line on stderr,
`error: <what>, <where>, <what to do>`, and exit with status 2; any other exception is a bug
and keeps its traceback. Library code raises `UserError` (or a subclass) for bad flag values,
missing or malformed files, records that do not fit the model, a config that does not match a
checkpoint, an existing output without overwrite; the message names the file (and line or id).

`UserError` is a `ValueError`, so callers that catch `ValueError` keep working.

Example:
    >>> error = UserError("no documents", where="corpus.txt:12", fix="add text or drop the file")
    >>> str(error)
    'no documents, corpus.txt:12, add text or drop the file'
    >>> error.where
    'corpus.txt:12'
"""

from __future__ import annotations

import sys


class UserError(ValueError):
    """Bad input a user can fix; the message says what, where, and what to do.

    Args:
        what: what is wrong (or the whole message, when `where`/`fix` are not given).
        where: the offending file (with `:line`), flag, or example id.
        fix: what to do about it.
    """

    def __init__(self, what: str, where: str | None = None, fix: str | None = None):
        self.what = what
        self.where = where
        self.fix = fix
        super().__init__(", ".join(part for part in (what, where, fix) if part))


def report_user_error(error: BaseException) -> None:
    """Prints `error: <message>` as one line on stderr (newlines folded)."""
    message = " ".join(str(error).split())
    print(f"error: {message}", file=sys.stderr, flush=True)


class MissingInputError(UserError, FileNotFoundError):
    """An input file or directory that does not exist (still a `FileNotFoundError`)."""


class ExistingOutputError(UserError, FileExistsError):
    """An output that exists already and may not be replaced (still a `FileExistsError`)."""


class OutputLockedError(UserError):
    """Another live job holds the output's lock (see `albert_tf.output_lock`)."""


class DiskFullError(UserError, OSError):
    """A write failed for lack of space; the message names the path and the space needed."""
