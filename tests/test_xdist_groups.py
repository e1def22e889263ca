"""Tests for tests/xdist_groups.py: each expensive fixture is built once per suite run."""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO_ROOT
from tests.xdist_groups import group_of, slow_modules_first

# A fixture named like one of the suite's builds, counting its builds and the workers it ran on.
CONFTEST = """
import os, pytest
from tests.xdist_groups import pytest_collection_modifyitems

def log(kind, name):
    with open(os.environ["GROUPS_LOG"], "a") as f:
        f.write(f"{kind} {name} {os.environ.get('PYTEST_XDIST_WORKER', 'none')}\\n")

@pytest.fixture(scope="session")
def finetuned_run():
    log("build", "finetuned_run")

@pytest.fixture(scope="module")
def served():
    log("build", "served")
"""
# Docstring examples, each logging where it ran (slow enough for both workers to take tests).
EXAMPLES = "".join(
    f'''
def example_{i}():
    """
    >>> import time; from conftest import log; time.sleep(0.2); log("run", "doctest")
    """
'''
    for i in range(2)
)
TESTS = {
    "test_a.py": "finetuned_run",
    "test_b.py": "finetuned_run",
    "test_c.py": "served",
    "test_d.py": "tmp_path",
}


def _test_module(fixture: str) -> str:
    return textwrap.dedent(
        f"""
        import time, pytest
        from conftest import log

        @pytest.mark.parametrize("i", range(4))
        def test_it(i, {fixture}):
            time.sleep(0.2)  # long enough for both workers to take tests
            log("run", "{fixture}")
        """
    )


def test_modules_holding_a_slow_test_go_first_whole_and_in_order():
    class Item:
        def __init__(self, module: str, slow: bool):
            self.module, self.slow = module, slow

        def get_closest_marker(self, name: str):
            return name if name == "slow" and self.slow else None

    items = [Item("a", False), Item("b", False), Item("b", True), Item("c", False), Item("d", True)]
    order = [(item.module, item.slow) for item in slow_modules_first(items)]
    assert order == [("b", False), ("b", True), ("d", True), ("a", False), ("c", False)]


def test_group_of_prefers_the_session_build_then_the_module():
    assert group_of(["tmp_path", "finetuned_run", "served"], "tests/x.py") == "finetuned_run"
    assert group_of(["tmp_path", "served"], "tests/x.py") == "tests/x.py"
    assert group_of(["tmp_path", "tiny_model_file"], "tests/x.py") is None


@pytest.mark.slow  # A pytest run on two workers.
def test_loadgroup_builds_each_fixture_once_and_still_spreads_the_rest(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for name, fixture in TESTS.items():
        (tmp_path / name).write_text(_test_module(fixture))
    for name in ("a_examples.py", "z_examples.py"):  # Collected first and last.
        (tmp_path / name).write_text(EXAMPLES)
    log = tmp_path / "groups.log"
    env = dict(os.environ, GROUPS_LOG=str(log), PYTHONPATH=str(REPO_ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup"]
        + ["-p", "no:cacheprovider", "--doctest-modules", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    workers = collections.defaultdict(list)
    for line in log.read_text().splitlines():
        kind, name, worker = line.split()
        workers[kind, name].append(worker)
    # Built once each: under plain `--dist load` (or pytest 9.2, whose node ids pytest-xdist
    # 3.8 cannot suffix with the group) each is usually built on both workers.
    assert len(workers["build", "finetuned_run"]) == 1
    assert len(workers["build", "served"]) == 1
    for name, count in (("finetuned_run", 8), ("served", 4)):
        assert workers["run", name] == workers["build", name] * count
    assert len(workers["run", "doctest"]) == 4 and len(set(workers["run", "doctest"])) == 1
    ran_on = {worker for (kind, _), names in workers.items() if kind == "run" for worker in names}
    assert ran_on == {"gw0", "gw1"}  # Still in parallel.
