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
# ({"script", "args", "cwd", "stdout", "stderr"} -> {"returncode", "cpu_seconds"}) with
# `tests/forked_child.py`, loaded from its path (argv[1]): `-I` leaves `tests` off the path.
_SERVER = r"""
import json, os, sys


class NoAlbertTf:  # albert_tf may be pip-installed here: make importing it fail.
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "albert_tf":
            raise ImportError("albert_tf is blocked")


sys.meta_path.insert(0, NoAlbertTf())
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow, tensorflow_text  # noqa: E401,F401

import importlib.util

spec = importlib.util.spec_from_file_location("forked_child", sys.argv[1])
forked_child = importlib.util.module_from_spec(spec)
spec.loader.exec_module(forked_child)


def run(request):
    os.chdir(request["cwd"])
    forked_child.redirect_output(request["stdout"], request["stderr"])
    sys.argv = ["-c", *request["args"]]
    exec(compile(request["script"], "<script>", "exec"), {"__name__": "__main__"})


print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    pid = forked_child.fork_child(lambda: run(request))
    print(json.dumps(forked_child.wait_child(pid)), flush=True)
"""
_FORKED_CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forked_child.py")

_server: subprocess.Popen | None = None


def _started() -> subprocess.Popen:
    global _server
    if _server is None or _server.poll() is not None:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        _server = subprocess.Popen(
            [sys.executable, "-I", "-c", _SERVER, _FORKED_CHILD],
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
