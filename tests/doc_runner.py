"""Runs the bash blocks of one Markdown doc, in order, as a reader would: in one shell per
block, in a work directory laid out like the repository root.

The work directory links the repository's code (`albert_tf/`, `benchmarks/`, `docs/`,
`scripts/`, ...), holds a copy of the embedded sample `data/`, and has `../shared` beside it
with the datasets cut to tiny slices (tests/doc_data.py). Each block runs in bash (`set -e
-o pipefail`), in which `albert-tf` and `python` are shell functions that hand their command
line to this process (and `pip`, which is reported and not run: the suite's environment has
every extra): an `albert-tf` command runs in a child of the test worker's command
server (tests/commands.py), with the size flags of tests/doc_overrides.py appended; a Python
script likewise starts with TensorFlow already loaded. Everything else (`mkdir`, `cp`,
pipes, variables) is bash's.

A block fails the doc on a non-zero exit, reported with the doc, its line, the command and the
tail of its output; before an `albert-tf` command runs, each input path it names (relative to
the work directory) must exist: one that does not is reported as a file that no earlier block
wrote, with what each earlier block did write.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import pathlib
import resource
import select
import shlex
import shutil
import subprocess
import sys
import time

from tests import commands
from tests.doc_blocks import Block
from tests.doc_overrides import ENVIRONMENT, input_paths, with_size_flags

REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
# What the docs' commands read from the repository root; `data/` is copied instead, so that
# a block writing there leaves the checkout alone.
REPO_ENTRIES = (
    "albert_tf",
    "benchmarks",
    "docs",
    "scripts",
    "tests",
    "pyproject.toml",
    "setup.cfg",
    "README.md",
    "CONTRIBUTING.md",
    "conftest.py",
)
OUTPUT_TAIL_LINES = 30
# A doc's `pip install` would change the suite's own environment, which scripts/test.sh built
# with every extra the docs name.
PIP_NOT_RUN = "not run: the test environment has every extra (scripts/test.sh)"
BLOCK_TIMEOUT_S = 300

# Sourced by each block's shell: `albert-tf` and `python` ask this process to run their
# command line (request folder, then its path on the request pipe; the exit status comes back
# on the reply pipe) and print what it printed.
_PRELUDE = r"""
set -eo pipefail
# Where the block stopped: a served command says it (its line, the command as run); bash's
# trap the rest (a function's own status is not reliably traced).
__docs_test_failed() {
  [[ -e $DOCS_TEST_DIR/failed ]] || printf "%s\t%s" "$1" "$2" > "$DOCS_TEST_DIR/failed"
}
trap '__docs_test_failed "$LINENO" "$BASH_COMMAND"' ERR
__docs_test_run() {
  local request status
  request=$(mktemp -d "$DOCS_TEST_DIR/request.XXXXXX")
  printf '%s\0' "${BASH_LINENO[1]}" "$PWD" "$@" > "$request/argv"
  env -0 > "$request/env"
  echo "$request" >&"$DOCS_TEST_REQUEST_FD"
  read -r status <&"$DOCS_TEST_REPLY_FD"
  cat "$request/stdout"
  cat "$request/stderr" >&2
  if [[ $status != 0 ]]; then
    printf "%s\t%s" "${BASH_LINENO[1]}" "$(< "$request/shown")" > "$DOCS_TEST_DIR/failed"
  fi
  return "$status"
}
albert-tf() { __docs_test_run albert-tf "$@"; }
python() { __docs_test_run python "$@"; }
python3() { __docs_test_run python "$@"; }
pip() { __docs_test_run pip "$@"; }
"""


class DocFailure(AssertionError):
    """A block of a doc failed: the message says where, what ran and what it printed."""


@dataclasses.dataclass
class BlockRun:
    """What the docs test did with one block."""

    block: Block
    seconds: float = 0.0  # Wall clock.
    cpu_seconds: float = 0.0  # User + system, of every process the block ran.
    commands: list[str] = dataclasses.field(default_factory=list)  # As run, size flags included.
    wrote: list[str] = dataclasses.field(default_factory=list)  # New files and folders.

    def report(self) -> str:
        if self.block.skip_reason:
            return f"{self.block.where}: not run: {self.block.skip_reason}"
        ran = "".join(f"\n    $ {command}" for command in self.commands)
        took = f"{self.seconds:.1f} s, CPU {self.cpu_seconds:.1f} s"
        return f"{self.block.where}: ran in {took}{ran}"


def make_workdir(root: pathlib.Path, shared_data: pathlib.Path) -> pathlib.Path:
    """`root/repo`, laid out like the repository root, with `root/shared/data` =
    `shared_data` beside it (as `../shared/data`); returns `root/repo`."""
    workdir = root / "repo"
    workdir.mkdir(parents=True)
    for name in REPO_ENTRIES:
        if (REPO_ROOT / name).exists():
            os.symlink(REPO_ROOT / name, workdir / name)
    shutil.copytree(REPO_ROOT / "data", workdir / "data")
    (root / "shared").mkdir()
    os.symlink(shared_data, root / "shared" / "data")
    return workdir


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's ended children: the shells, the programs
    they ran, plain subprocesses."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _written(workdir: pathlib.Path) -> set[str]:
    """The paths under `workdir` that blocks wrote (not the linked repository entries)."""
    found = set()
    for top in workdir.iterdir():
        if top.name in REPO_ENTRIES:
            continue
        found.add(top.name)
        if top.is_dir() and not top.is_symlink():
            found.update(str(path.relative_to(workdir)) for path in top.rglob("*"))
    return found


class _DocShell:
    """Runs blocks of one doc in `workdir`, serving their `albert-tf` and `python` lines."""

    def __init__(self, workdir: pathlib.Path, control: pathlib.Path):
        self.workdir = workdir
        self.control = control  # Request folders, the prelude, the failed-line file.
        self.runs: list[BlockRun] = []

    def run(self, block: Block) -> BlockRun:
        run = BlockRun(block)
        self.runs.append(run)
        if block.skip_reason:
            return run
        before = _written(self.workdir)
        start, children_before = time.monotonic(), _children_cpu()
        try:
            self._run_shell(run)
        finally:
            run.seconds = time.monotonic() - start
            run.cpu_seconds += _children_cpu() - children_before
            new = _written(self.workdir) - before
            # The outermost: `records`, not each of its files.
            run.wrote = sorted(path for path in new if os.path.dirname(path) not in new)
        return run

    def _run_shell(self, run: BlockRun) -> None:
        prelude = self.control / "prelude.sh"
        prelude.write_text(_PRELUDE)
        (self.control / "failed").unlink(missing_ok=True)
        script = f"source {shlex.quote(str(prelude))}\n{run.block.text}"
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        env = {
            **os.environ,
            **ENVIRONMENT,
            "PYTHONPATH": str(REPO_ROOT),  # As the command server's (tests/commands.py).
            # `albert-tf` run as a program (`xargs albert-tf`): this interpreter's console script.
            "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ.get('PATH', '')}",
            "DOCS_TEST_DIR": str(self.control),
            "DOCS_TEST_REQUEST_FD": str(request_write),
            "DOCS_TEST_REPLY_FD": str(reply_read),
        }
        with open(self.control / "output", "wb") as output:
            shell = subprocess.Popen(
                ["bash", "-c", script],
                cwd=self.workdir,
                env=env,
                stdin=subprocess.DEVNULL,  # A served command reads none (the docs' read none).
                stdout=output,
                stderr=subprocess.STDOUT,
                pass_fds=(request_write, reply_read),
            )
        os.close(request_write)
        os.close(reply_read)
        requests = os.fdopen(request_read, "rb", buffering=0)
        try:
            self._serve(run, shell, requests, reply_write)
        finally:
            requests.close()
            os.close(reply_write)
            if shell.poll() is None:
                shell.kill()
                shell.wait()
        if shell.returncode != 0:
            raise DocFailure(self._failure(run, f"exit status {shell.returncode}"))

    def _serve(self, run: BlockRun, shell: subprocess.Popen, requests, reply: int) -> None:
        deadline = time.monotonic() + BLOCK_TIMEOUT_S
        pending = b""
        while True:
            if time.monotonic() > deadline:
                raise DocFailure(self._failure(run, f"still running after {BLOCK_TIMEOUT_S} s"))
            ready, _, _ = select.select([requests], [], [], 0.05)
            if not ready:
                if shell.poll() is not None:
                    return
                continue
            data = requests.read(4096)
            if not data:  # Every writer gone: the shell (and its children) ended.
                shell.wait()
                return
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                status = self._request(run, pathlib.Path(line.decode()))
                os.write(reply, f"{status}\n".encode())

    def _request(self, run: BlockRun, request: pathlib.Path) -> int:
        """Runs the command line in the folder `request`; returns its exit status."""
        line, cwd, program, *args = (request / "argv").read_bytes().decode().split("\0")[:-1]
        env = dict(
            entry.split("=", 1)
            for entry in (request / "env").read_bytes().decode().split("\0")
            if "=" in entry
        )
        env["PWD"] = cwd
        if program == "pip":  # The suite's environment has every extra: nothing to install.
            run.commands.append(f"{shlex.join(['pip', *args])}  # {PIP_NOT_RUN}")
            (request / "shown").write_text(run.commands[-1])
            for name in ("stdout", "stderr"):
                (request / name).write_text("")
            return 0
        if program == "albert-tf" and args:
            command, *flags = args
            self._check_inputs(run, int(line), command, flags, pathlib.Path(cwd))
            argv = commands.command_line(command, *with_size_flags(command, flags))
            shown = ["albert-tf", *argv[3:]]
        else:  # python: -c SOURCE or a script, with TensorFlow preloaded.
            if args and args[0].endswith(".py"):
                args = [args[0], *with_size_flags(os.path.normpath(args[0]), args[1:])]
            argv = [sys.executable, *args]
            shown = ["python", *args]
        run.commands.append(shlex.join(shown))
        (request / "shown").write_text(run.commands[-1])
        # Its stdout and stderr go to files in `request`, which the shell function prints.
        process = commands.start(argv, str(request), env=env, cwd=cwd, preloaded=True)
        try:
            returncode = process.wait(BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.send_signal(9)
            returncode = process.wait()
        # A served command's CPU time (a plain subprocess's counts in `_children_cpu`).
        run.cpu_seconds += getattr(process, "cpu_seconds", None) or 0.0
        return returncode

    def _check_inputs(
        self, run: BlockRun, line: int, command: str, flags: list[str], cwd: pathlib.Path
    ) -> None:
        """Fails the doc if a path `command` (on the block's `line`, its first being 2) reads
        is missing: no earlier block wrote it."""
        for flag, path in input_paths(command, flags):
            absolute = path if os.path.isabs(path) else os.path.join(cwd, path)
            if glob.has_magic(absolute) and glob.glob(absolute) or os.path.exists(absolute):
                continue
            earlier = [r for r in self.runs if r is not run and r.wrote]
            wrote = "".join(
                f"\n  {r.block.where} wrote {', '.join(r.wrote[:8])}"
                + (" ..." if len(r.wrote) > 8 else "")
                for r in earlier
            )
            where = f"{run.block.name}:{run.block.line + line - 1}"
            raise DocFailure(
                f"{where}: `albert-tf {command}` reads {path} ({flag}), which no "
                f"earlier block wrote{wrote or ' (no earlier block wrote anything)'}\n"
                "Add the block that writes it, or fix the path."
            )

    def _failure(self, run: BlockRun, what: str) -> str:
        output = (self.control / "output").read_text(errors="replace").splitlines()
        tail = "\n".join(output[-OUTPUT_TAIL_LINES:])
        failed = self.control / "failed"
        where, command = run.block.where, ""
        if failed.exists():
            line, _, command = failed.read_text().partition("\t")
            # Line 1 of the script sources the prelude; line 2 is the block's first line.
            where = f"{run.block.name}:{run.block.line + int(line) - 1}"
        return (
            f"{where} (block at line {run.block.line}): {what}\n"
            f"command: {command}\n"
            f"output (last {OUTPUT_TAIL_LINES} lines):\n{tail}"
        )


@dataclasses.dataclass
class DocResult:
    """The blocks of one doc as the docs test left them, and the first failure (if any)."""

    runs: list[BlockRun]
    failure: str | None

    def report(self) -> str:
        ran = [run for run in self.runs if not run.block.skip_reason]
        seconds = sum(run.seconds for run in ran)
        cpu_seconds = sum(run.cpu_seconds for run in ran)
        skipped = len(self.runs) - len(ran)
        head = (
            f"{len(ran)} blocks ran in {seconds:.1f} s (CPU {cpu_seconds:.1f} s), {skipped} not run"
        )
        return "\n".join([head, *(run.report() for run in self.runs)])


def run_doc(blocks: list[Block], root: pathlib.Path, shared_data: pathlib.Path) -> DocResult:
    """Runs `blocks` (one doc's, in order) in a new work directory under `root`, up to the
    first that fails."""
    workdir = make_workdir(root, shared_data)
    control = root / "control"
    control.mkdir()
    shell = _DocShell(workdir, control)
    try:
        for block in blocks:
            shell.run(block)
    except DocFailure as failure:
        return DocResult(shell.runs, str(failure))
    return DocResult(shell.runs, None)
