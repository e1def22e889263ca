"""`albert-tf` command lines as the tests run them: `python -m albert_tf.commands COMMAND`.

The same dispatcher as the console script (`albert_tf.commands.dispatch.main`), run with this
interpreter so that the checkout under test (PYTHONPATH) is the package that runs.

`run(argv, ...)` is `subprocess.run` for such command lines, but starts each one as a forked
child of a process that loaded TensorFlow once (`tests/command_server.py`, one per test worker):
the same dispatcher, process, files and exit status, without the 5-10 s start-up. A command line
whose environment changes what TensorFlow reads when it loads, or any other program, runs as a
plain subprocess. A Python script of the tests (`[sys.executable, "-c", SOURCE, ...]` or
`[sys.executable, PATH.py, ...]`) is served the same way when the caller asks
(`preloaded=True`): it then starts with TensorFlow and albert_tf imported, which a script that
checks what a fresh interpreter loads must not.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile

from tests.command_server import COMMANDS_MODULE, LOAD_TIME_ENV

_PREFIX = [sys.executable, "-m", COMMANDS_MODULE]
_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def command_line(command: str, *args: str) -> list[str]:
    """The argv of `albert-tf COMMAND ARGS...`."""
    return [*_PREFIX, command, *args]


class _Server:
    """The command server of this process, started on first use."""

    def __init__(self):
        env = {**os.environ, "PYTHONPATH": _REPO_ROOT}
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.command_server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=_REPO_ROOT,
        )
        ready = self._read()
        self.usable = ready["ready"]
        self.environ = ready["environ"]
        atexit.register(self.close)

    def _read(self) -> dict:
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("the command server stopped")
        return json.loads(line)

    def ask(self, message: dict) -> dict:
        self._process.stdin.write(json.dumps(message) + "\n")
        self._process.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.stdin.close()
            self._process.wait(timeout=30)


_server: _Server | None = None


def _interpreter_args(argv: list[str], preloaded: bool) -> list[str] | None:
    """The interpreter's arguments of `argv` if the server can run it: `-m albert_tf.commands`,
    or (`preloaded`) `-c SOURCE` or a `.py` path, no interpreter option before them; else None."""
    if len(argv) < 2 or argv[0] != sys.executable:
        return None
    args = list(argv[1:])
    script = (args[0] == "-c" and len(args) > 1) or args[0].endswith(".py")
    return args if args[:2] == _PREFIX[1:] or (preloaded and script) else None


def _served(argv: list[str], env: dict[str, str], preloaded: bool) -> bool:
    """Whether `argv` with `env` can run in a child of the server: an `albert-tf` command line
    or a Python script whose environment asks TensorFlow for nothing else than the server's at
    load time (an unset log level, as `albert-tf` sets it, only quiets TensorFlow's C++ logs)."""
    global _server
    if _interpreter_args(argv, preloaded) is None:
        return False
    if _server is None:
        _server = _Server()
    defaults = {"PYTHONPATH": _REPO_ROOT, "TF_CPP_MIN_LOG_LEVEL": "3"}  # As `albert-tf` sets.
    return _server.usable and all(
        env.get(name, defaults.get(name)) == _server.environ.get(name) for name in LOAD_TIME_ENV
    )


class Started:
    """A command line running in a child of the server (`start`): `pid`, `poll`, `wait`."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str | None, outputs: str):
        self.args = argv  # As `subprocess.Popen` names it.
        self.outputs = outputs
        self.paths = {name: os.path.join(outputs, name) for name in ("stdout", "stderr")}
        for path in self.paths.values():  # There from the start, as `subprocess` makes them.
            open(path, "wb").close()
        request = {
            "argv": argv[1:],  # The interpreter's arguments (`_served` checked argv[0]).
            "env": env,
            "cwd": os.path.abspath(os.fspath(cwd or os.getcwd())),
            **self.paths,
        }
        self.pid = _server.ask({"start": request})["pid"]
        self.returncode: int | None = None
        self.cpu_seconds: float | None = None  # User + system, once it ended.

    def wait(self, timeout: float | None = None) -> int:
        """The exit status (negative: the signal that ended it); raises `TimeoutExpired`."""
        if self.returncode is None:
            done = _server.ask({"wait": self.pid, "timeout": timeout})
            if done.get("timeout"):
                raise subprocess.TimeoutExpired(self.args, timeout)
            self.returncode = done["returncode"]
            self.cpu_seconds = done["cpu_seconds"]
        return self.returncode

    def poll(self) -> int | None:
        try:
            return self.wait(timeout=0)
        except subprocess.TimeoutExpired:
            return None

    def send_signal(self, signal_number: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, signal_number)

    def output(self, name: str, text: bool = True) -> str | bytes:
        with open(self.paths[name], "rb") as handle:
            data = handle.read()
        return data.decode("utf-8", "replace") if text else data


def start(
    argv: list[str],
    outputs: str,
    *,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    preloaded: bool = False,
) -> Started | subprocess.Popen:
    """`argv` started in a child of the server (a `subprocess.Popen` where it cannot be; a
    Python script only if `preloaded`), its stdout and stderr written to files in the directory
    `outputs`."""
    argv = [os.fspath(arg) for arg in argv]
    if _served(argv, dict(os.environ if env is None else env), preloaded):
        return Started(argv, dict(os.environ if env is None else env), cwd, outputs)
    with (
        open(os.path.join(outputs, "stdout"), "wb") as out,
        open(os.path.join(outputs, "stderr"), "wb") as err,
    ):
        return subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=err)


def finished(
    process: Started | subprocess.Popen, outputs: str, timeout: float | None = 300
) -> subprocess.CompletedProcess:
    """What `process` (from `start(argv, outputs)`) printed and its exit status, once it ends."""
    returncode = process.wait(timeout)
    captured = {}
    for name in ("stdout", "stderr"):
        with open(os.path.join(outputs, name), encoding="utf-8", errors="replace") as handle:
            captured[name] = handle.read()
    return subprocess.CompletedProcess(process.args, returncode, **captured)


def run(
    argv: list[str],
    *,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike | None = None,
    timeout: float | None = 300,
    capture_output: bool = True,
    text: bool = True,
    check: bool = False,
    preloaded: bool = False,
) -> subprocess.CompletedProcess:
    """`subprocess.run(argv, capture_output=True, text=True, ...)`, served where it can be (a
    Python script only if `preloaded`)."""
    argv = [os.fspath(arg) for arg in argv]
    full_env = dict(os.environ if env is None else env)
    if not _served(argv, full_env, preloaded):
        return subprocess.run(
            argv,
            env=env,
            cwd=cwd,
            timeout=timeout,
            capture_output=capture_output,
            text=text,
            check=check,
        )
    with tempfile.TemporaryDirectory() as outputs:
        started = Started(argv, full_env, cwd, outputs)
        try:
            returncode = started.wait(timeout)
        except subprocess.TimeoutExpired:
            started.send_signal(9)
            started.wait()
            raise
        captured = {name: started.output(name, text) for name in ("stdout", "stderr")}
    result = subprocess.CompletedProcess(argv, returncode, **captured)
    if check:
        result.check_returncode()
    return result
