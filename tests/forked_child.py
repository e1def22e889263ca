"""A forked child that runs one piece of code as a process would, and its exit status: what the
two fork servers of the tests share (`tests/command_server.py` and the server of
`tests/fresh_process.py`).

`fork_child(run)` forks; the child calls `run` and ends with the status Python gives a script
(`run`'s return value, else `SystemExit`'s code, else 1 with a traceback on stderr) after the
interpreter's exit duties (logging shut down, streams flushed), without running the parent's
`atexit` handlers or returning into its loop. `wait_child(pid, timeout)` is its exit code
(negative: killed by that signal) and CPU seconds.

Standard library only, and importable by path: the server of `tests/fresh_process.py` runs in an
isolated interpreter (`python -I`) that cannot import the `tests` package, so it loads this file
from its path.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import NoReturn


def redirect_output(stdout: str, stderr: str) -> None:
    """Points file descriptors 1 and 2 at the files `stdout` and `stderr` (created or
    truncated), as a shell's `>stdout 2>stderr` does for a new process."""
    for fd, path in ((1, stdout), (2, stderr)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)


def exit_code(stop: SystemExit) -> int:
    """The status a process ends with on `stop`: its int code, 0 for None, 1 for a message."""
    if isinstance(stop.code, int):
        return stop.code
    return 0 if stop.code is None else 1


def run_and_exit(run: Callable[[], int | None]) -> NoReturn:
    """Runs `run` in this (forked) process and ends it with the status Python would give."""
    code = 1
    try:
        code = run() or 0
    except SystemExit as stop:
        code = exit_code(stop)
    except BaseException:  # noqa: BLE001 - a crash: a traceback and status 1, as Python gives.
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        _finish()
        os._exit(code)


def _finish() -> None:
    """What interpreter exit does that a child's `os._exit` would skip: the log handlers are
    flushed and closed, and the standard streams flushed."""
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - closed by the code that ran: nothing left to write.
            pass


def fork_child(run: Callable[[], int | None]) -> int:
    """Forks a child that runs `run` (`run_and_exit`); returns its pid. The parent's buffered
    output is flushed first, so the child does not write it again."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        run_and_exit(run)
    return pid


def wait_child(pid: int, timeout: float | None = None) -> dict:
    """`{"returncode": code, "cpu_seconds": user + system}` once the child `pid` has ended (code
    negative: killed by that signal), or `{"timeout": True}` when it runs past `timeout`
    seconds (None: no limit)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        done, status, usage = os.wait4(pid, 0 if deadline is None else os.WNOHANG)
        if done:
            return {
                "returncode": os.waitstatus_to_exitcode(status),
                "cpu_seconds": usage.ru_utime + usage.ru_stime,
            }
        if time.monotonic() > deadline:
            return {"timeout": True}
        time.sleep(0.02)
