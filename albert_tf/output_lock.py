"""`output_lock`: one job at a time per output directory (or output file prefix).

A job that writes an output holds an exclusive `fcntl.flock` on a hidden lock file next to it,
`<parent>/.<name>.lock`. The kernel releases the lock when the process dies, SIGKILL included,
so a killed job never leaves a stale lock and rerunning it resumes as before. A second job on
the same output fails at once with a `OutputLockedError` (a `UserError`) naming the holder's
pid and command, which the holder wrote into the lock file.

Why next to the output and not in it: the lock must not make the output "exist" (outputs that
refuse to replace an existing one check `os.path.exists(output)`), and must not be matched by
globs over the output's files (`out/*.tfrecord`); a dot-file beside it is neither. Directories
the lock had to create (a missing parent) and the lock file itself are removed on release, so a
job that fails on its inputs leaves nothing behind. Remote outputs (`gs://...`) are not locked.

Example:
    >>> import os
    >>> out = os.path.join(tmp_dir, "run")
    >>> with output_lock(out):
    ...     try:
    ...         output_lock(out).__enter__()
    ...     except OutputLockedError as error:
    ...         print(type(error).__name__, f"by pid {os.getpid()} " in str(error))
    ...     os.path.exists(out)
    OutputLockedError True
    False
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Iterator

from albert_tf.errors import OutputLockedError, UserError


def lock_path(output: str) -> str:
    """The lock file of `output`: `<parent>/.<name>.lock`.

    Example:
        >>> lock_path("/runs/rte/")
        '/runs/.rte.lock'
    """
    output = os.path.abspath(os.fspath(output))
    parent, name = os.path.split(output)
    return os.path.join(parent, f".{name}.lock")


class OutputLock:
    """An exclusive lock on `output`; `acquire` fails at once when another process holds it."""

    def __init__(self, output: str):
        self.output = os.fspath(output)
        self.path = lock_path(self.output)
        self._fd: int | None = None
        self._created_dirs: list[str] = []

    def acquire(self) -> None:
        """Takes the lock and records this process in it.

        Raises:
            OutputLockedError: another live process holds it (message: its pid and command).
            UserError: the output's directory cannot be written (a file in the path, no
                permission, read-only file system).
        """
        self._make_parent()
        while True:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(fd)
                os.close(fd)
                self._remove_created_dirs()
                raise OutputLockedError(
                    f"output {self.output} is in use by pid {holder}",
                    where=self.path,
                    fix="wait for that job to end (or stop it), or choose another output",
                ) from None
            if _same_file(fd, self.path):
                break
            os.close(fd)  # The previous holder removed the file meanwhile: lock the new one.
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {' '.join(sys.argv) or sys.executable}\n".encode())
        self._fd = fd

    def release(self) -> None:
        """Removes the lock file (and directories it created), then releases the lock."""
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.path)  # Before unlocking: a waiter re-checks the inode (see acquire).
        os.close(self._fd)
        self._fd = None
        self._remove_created_dirs()

    def __enter__(self) -> OutputLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()

    def _make_parent(self) -> None:
        missing = []
        directory = os.path.dirname(self.path)
        while directory and not os.path.lexists(directory):
            missing.append(directory)
            directory = os.path.dirname(directory)
        if directory and not os.path.isdir(directory):
            raise _unwritable(self.output, directory, "a file, not a directory")
        for path in reversed(missing):
            try:
                os.mkdir(path)
            except OSError as error:
                self._remove_created_dirs()
                raise _unwritable(self.output, path, error.strerror) from error
            self._created_dirs.append(path)

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            self._remove_created_dirs()
            raise _unwritable(self.output, os.path.dirname(self.path), error.strerror) from error

    def _remove_created_dirs(self) -> None:
        for path in reversed(self._created_dirs):
            with contextlib.suppress(OSError):  # Not empty: someone wrote there; keep it.
                os.rmdir(path)
        self._created_dirs = []


@contextlib.contextmanager
def output_lock(output: str | None, directory: bool = False) -> Iterator[OutputLock | None]:
    """Holds `OutputLock(output)` for the block; a no-op for None, "" and remote paths.

    With `directory`, an `output` that exists but is not a directory is refused first.
    """
    if not output or "://" in os.fspath(output):
        yield None
        return
    if directory and os.path.exists(output) and not os.path.isdir(output):
        raise UserError(
            f"output directory {output} is a file",
            where=output,
            fix="choose a directory (new or existing) for the output",
        )
    lock = OutputLock(output)
    lock.acquire()
    try:
        yield lock
    finally:
        lock.release()


def _read_holder(fd: int) -> str:
    os.lseek(fd, 0, os.SEEK_SET)
    text = os.read(fd, 4096).decode("utf-8", "replace").strip()
    pid, _, command = text.partition(" ")
    return f"{pid} ({command})" if pid else "unknown (it has not written its pid yet)"


def _same_file(fd: int, path: str) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


def _unwritable(output: str, path: str, reason: str) -> UserError:
    return UserError(
        f"cannot write output {output} ({path}: {reason})",
        where=path,
        fix="choose an output in a writable directory",
    )
