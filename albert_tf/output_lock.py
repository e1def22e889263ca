"""`output_lock`: one job at a time per output directory (or output file prefix).

A job that writes an output holds an exclusive `fcntl.flock` on a hidden lock file next to it,
`<parent>/.<name>.lock`. The kernel releases the lock when the process dies, SIGKILL included,
so a killed job never blocks the next one and rerunning it resumes as before. A second job on
the same output fails at once with a `OutputLockedError` (a `UserError`) naming the holder's
pid and command, which the holder wrote into the lock file.

A holder that ends removes the lock file; one that was killed leaves it, with its pid, and
leaves the temporary names of the writes it was in (`atomic_files`). The next job takes such a
lock over, removes those leftovers (`remove_temp_leftovers`: beside and inside the output,
except under nested outputs other live jobs hold) and says so in one warning.

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
import logging
import os
import sys
from collections.abc import Iterator

from albert_tf.atomic_files import remove_temp_leftovers
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
        dead_holder = _read_holder(fd) if _recorded_pid(fd) else None
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()} {' '.join(sys.argv) or sys.executable}\n".encode())
        self._fd = fd
        if dead_holder is not None:
            self._take_over(dead_holder)

    def _take_over(self, dead_holder: str) -> None:
        """Cleans up after a holder that died with the lock (its pid is in the file)."""
        removed = remove_temp_leftovers(self.output, _live_outputs)
        logging.warning(
            "Output %s: took over the lock of pid %s, which ended without releasing it "
            "(killed?); removed %d temporary leftover(s) of its writes%s",
            self.output,
            dead_holder,
            len(removed),
            f": {', '.join(removed[:5])}{' ...' if len(removed) > 5 else ''}" if removed else "",
        )

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
    pid, command = _record(fd)
    return f"{pid} ({command})" if pid else "unknown (it has not written its pid yet)"


def _record(fd: int) -> tuple[str, str]:
    """(pid, command) as the holder wrote them; ("", "") before it has."""
    os.lseek(fd, 0, os.SEEK_SET)
    text = os.read(fd, 4096).decode("utf-8", "replace").strip()
    pid, _, command = text.partition(" ")
    return pid, command


def _recorded_pid(fd: int) -> int | None:
    pid = _record(fd)[0]
    return int(pid) if pid.isdigit() else None


def _live_outputs(directory: str, names: list[str]) -> set[str]:
    """The entries of `directory` whose lock file names a live process (nested outputs)."""
    held = set()
    for name in names:
        if not (name.startswith(".") and name.endswith(".lock")):
            continue
        try:
            fd = os.open(os.path.join(directory, name), os.O_RDONLY)
        except OSError:
            continue
        try:
            pid = _recorded_pid(fd)
        finally:
            os.close(fd)
        if pid is not None and _is_alive(pid):
            held.add(name[1 : -len(".lock")])
    return held


def _is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # Another user's process.
        return True
    return True


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
