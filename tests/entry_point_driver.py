"""Runs many `albert-tf` command lines in ONE process (one TensorFlow start-up).

    python tests/entry_point_driver.py cases.json results.json

`cases.json`: a list of `{"id": ..., "command": "pretrain", "argv": [...], "cwd": ...}`.
Each command's module is executed as `__main__` once, as `albert-tf` does (its flags defined,
`cli.run(main)` intercepted to get `main`); each case then parses its own argv and runs
through the real `cli.run`, exactly as on the command line, with file descriptors 1 and 2
captured. Between commands, the flags a command defined are deleted so the next one can
define its own. `results.json` gets `{"id", "exit_code", "stderr", "stdout"}` per case.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import warnings

from absl import flags

from albert_tf import cli
from albert_tf.commands.dispatch import PROGRAM, run_command

cli.begin()  # Before TensorFlow loads, as `albert-tf` does (a no-op where it has loaded).
# A library's Python warning is not the command's error line (as PYTHONWARNINGS=ignore).
warnings.simplefilter("ignore")

FLAGS = flags.FLAGS


def _load_main(command: str) -> tuple:
    """Executes `command`'s module as __main__ with `cli.run` intercepted; returns its `main`
    and the keywords it passes to `cli.run`."""
    captured = []
    real_run, driver_main = cli.run, sys.modules["__main__"]
    cli.run = lambda main, **keywords: captured.append((main, keywords))
    try:
        run_command(command, [f"{PROGRAM} {command}"])
    finally:
        cli.run, sys.modules["__main__"] = real_run, driver_main
    (main_and_keywords,) = captured
    return main_and_keywords


def _run_case(main, keywords: dict, command: str, argv: list[str], cwd: str) -> dict:
    FLAGS.unparse_flags()
    sys.argv = [f"{PROGRAM} {command}", *argv]
    outputs = {}
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    files = {fd: tempfile.TemporaryFile() for fd in (1, 2)}
    previous_cwd = os.getcwd()
    exit_code = 0
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, handle in files.items():
            os.dup2(handle.fileno(), fd)
        os.chdir(cwd)
        try:
            cli.run(main, **keywords)
        except SystemExit as stop:
            code = stop.code
            exit_code = code if isinstance(code, int) else (0 if code is None else 1)
        except BaseException as error:  # noqa: BLE001 - a bug: report it like Python would.
            import traceback

            traceback.print_exc()
            exit_code = 1
            del error
    finally:
        os.chdir(previous_cwd)
        sys.stdout.flush()
        sys.stderr.flush()
        for fd in (1, 2):
            os.dup2(saved[fd], fd)
            os.close(saved[fd])
            files[fd].seek(0)
            outputs[fd] = files[fd].read().decode("utf-8", "replace")
            files[fd].close()
    return {"exit_code": exit_code, "stdout": outputs[1], "stderr": outputs[2]}


def run_cases(cases: list[dict]) -> list[dict]:
    """Every case, grouped by command in order of first appearance."""
    import tensorflow  # noqa: F401  - the shared start-up, before any case is timed or captured

    cli.release_stderr()
    results = []
    for command in dict.fromkeys(case["command"] for case in cases):
        before = set(FLAGS)
        main, keywords = _load_main(command)
        for case in (c for c in cases if c["command"] == command):
            cwd = case.get("cwd", os.getcwd())
            result = _run_case(main, keywords, command, case["argv"], cwd)
            results.append({"id": case["id"], **result})
        for name in set(FLAGS) - before:  # The next command defines its own flags.
            delattr(FLAGS, name)
    return results


if __name__ == "__main__":
    cases_file, results_file = sys.argv[1:3]  # Before the cases replace sys.argv.
    with open(cases_file, encoding="utf-8") as handle:
        all_cases = json.load(handle)
    all_results = run_cases(all_cases)
    with open(results_file, "w", encoding="utf-8") as handle:
        json.dump(all_results, handle, indent=1)
