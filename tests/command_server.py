"""`albert-tf` command lines (and Python scripts) in forked children of one process that loaded
TensorFlow once.

A command run as a subprocess spends 5-10 s of CPU importing TensorFlow, Keras and albert_tf
before it reads its first flag; the suite runs dozens. The server (`python -m
tests.command_server`, one per test worker) imports them once, executing no TensorFlow op (so
that no thread pool exists to be lost in a fork), then forks a child per command line, which
runs `albert_tf.commands.dispatch.main` exactly as the `albert-tf` console script does: its own
process, working directory, environment, file descriptors 1 and 2 and exit status. What cannot
change after TensorFlow has loaded (its oneDNN, XLA, thread and log settings, the Python path)
must match the server's, else the client runs a plain subprocess (`tests.commands`).

A script (`python -c SOURCE ARGS...` or `python PATH ARGS...`) runs the same way, as
`__main__` of the child: tests that need a process of their own (logical devices, TF_CONFIG, a
SIGKILL) start it without the TensorFlow import.

Protocol: one JSON object per line on stdin; answers one per line on stdout.
    {"start": {"argv": [...], "env": {...}, "cwd": ..., "stdout": path, "stderr": path}}
        -> {"pid": pid}   (argv: the interpreter's arguments, e.g. ["-m", "albert_tf.commands",
        COMMAND, ...], ["-c", SOURCE, ...] or [PATH, ...])
    {"wait": pid, "timeout": seconds} -> {"returncode": code, "cpu_seconds": user + system}
        (code negative: killed by a signal), or {"timeout": true}
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading

from tests.forked_child import fork_child, redirect_output, wait_child

# Read when TensorFlow loads (or by the interpreter at start-up): a command line asking for
# other values than the server's runs in a plain subprocess instead.
LOAD_TIME_ENV = (
    "PYTHONPATH",
    "TF_CPP_MIN_LOG_LEVEL",
    "TF_ENABLE_ONEDNN_OPTS",
    "ONEDNN_MAX_CPU_ISA",
    "DNNL_MAX_CPU_ISA",
    "ONEDNN_DEFAULT_FPMATH_MODE",
    "TF_SET_ONEDNN_FPMATH_MODE",
    "XLA_FLAGS",
    "TF_XLA_FLAGS",
    "OMP_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
    "CUDA_VISIBLE_DEVICES",
    "PYTHONHASHSEED",
)


COMMANDS_MODULE = "albert_tf.commands"


def _preload() -> None:
    """Imports what every command imports, without running a TensorFlow op."""
    import keras  # noqa: F401
    import tensorflow  # noqa: F401
    import tensorflow_text  # noqa: F401

    import albert_tf.data.builder  # noqa: F401
    import albert_tf.export.saved_model  # noqa: F401
    import albert_tf.training.pretrain  # noqa: F401
    from albert_tf.finetune.families import family_names, get_family

    for family in family_names():  # Every family's module, from the families' table.
        get_family(family)


def _main(argv: list[str]) -> int | None:
    """Runs the interpreter arguments `argv` as `python ARGV...` would in this process."""
    import runpy

    if argv[:2] == ["-m", COMMANDS_MODULE]:
        from albert_tf.commands.dispatch import main

        sys.argv = argv[1:]
        return main(argv[1:])
    if argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        sys.path[0] = ""  # As `python -c`: the working directory first.
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102
        return 0
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))  # As `python PATH`.
    runpy.run_path(argv[0], run_name="__main__")
    return 0


def _child(request: dict) -> int | None:
    """Runs one command line in this (forked) process as its own process: the request's working
    directory, environment and output files, no stdin; its status (`forked_child`)."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    stdin = os.open(os.devnull, os.O_RDONLY)
    os.dup2(stdin, 0)
    redirect_output(request["stdout"], request["stderr"])
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - fd 0 for the process's life.
    return _main(request["argv"])


def serve() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # As `albert-tf` does (cli.begin).
    _preload()
    # Only the interpreter's own thread may exist, else a fork could lose a lock's holder.
    ready = {"ready": threading.active_count() == 1, "environ": dict(os.environ)}
    print(json.dumps(ready), flush=True)
    running = set()
    for line in sys.stdin:
        message = json.loads(line)
        if "start" in message:
            pid = fork_child(lambda request=message["start"]: _child(request))
            running.add(pid)
            answer = {"pid": pid}
        else:
            answer = wait_child(message["wait"], message.get("timeout"))
            if "returncode" in answer:
                running.discard(message["wait"])
        print(json.dumps(answer), flush=True)
    # The client is gone (its test process ended, maybe by a failure): no child outlives it.
    for pid in running:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


if __name__ == "__main__":
    serve()
