"""Scripts run as a user of an export runs them: `tensorflow` and `tensorflow_text`, no albert_tf.

`run_without_albert_tf(script, *args)` runs `script` (Python source reading `sys.argv[1:]`) in
a process where importing albert_tf fails, and returns the JSON it printed after `RESULT`. The
processes are forked from one interpreter per test worker (started with `python -I`: no
PYTHONPATH, no current directory, no user site) that imported only TensorFlow and
tensorflow-text and ran no TensorFlow op, so each script skips the 5 s TensorFlow import and
still starts with nothing but those two packages loaded. A script failing is an
`AssertionError` with its stderr.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
from typing import Any

# The server: blocks albert_tf, imports TensorFlow, then forks a child per request
# ({"script", "args", "cwd", "stdout", "stderr"} -> {"returncode"}).
_SERVER = r"""
import json, os, sys


class NoAlbertTf:  # albert_tf may be pip-installed here: make importing it fail.
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "albert_tf":
            raise ImportError("albert_tf is blocked")


sys.meta_path.insert(0, NoAlbertTf())
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow, tensorflow_text  # noqa: E401,F401

print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(request["cwd"])
            for fd, name in ((1, "stdout"), (2, "stderr")):
                target = os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(target, fd)
                os.close(target)
            sys.argv = ["-c", *request["args"]]
            exec(compile(request["script"], "<script>", "exec"), {"__name__": "__main__"})
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}), flush=True)
"""

_server: subprocess.Popen | None = None


def _started() -> subprocess.Popen:
    global _server
    if _server is None or _server.poll() is not None:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        _server = subprocess.Popen(
            [sys.executable, "-I", "-c", _SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tempfile.gettempdir(),
        )
        assert json.loads(_server.stdout.readline())["ready"]
        atexit.register(_server.stdin.close)
    return _server


def run_without_albert_tf(script: str, *args: str, cwd: str | os.PathLike) -> Any:
    """`script` run with `args` in a process without albert_tf; the JSON after its `RESULT`."""
    server = _started()
    with tempfile.TemporaryDirectory() as outputs:
        paths = {name: os.path.join(outputs, name) for name in ("stdout", "stderr")}
        request = {"script": script, "args": list(args), "cwd": os.fspath(cwd), **paths}
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        returncode = json.loads(server.stdout.readline())["returncode"]
        stdout, stderr = (open(path, encoding="utf-8").read() for path in paths.values())
    assert returncode == 0, stderr[-3000:]
    line = next(line for line in stdout.splitlines() if line.startswith("RESULT"))
    return json.loads(line[len("RESULT") :])
