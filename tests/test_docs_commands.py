"""Every bash block of README.md, CONTRIBUTING.md and docs/*.md runs (tests/doc_runner.py):
each doc's blocks in order in a work directory of their own, on tiny slices of
`../shared/data` (tests/doc_data.py), with size flags appended to the training commands
(tests/doc_overrides.py). A block marked `_Not run by the docs test: REASON._` is reported with
its reason. The report (`pytest -rP`, or `-s`) lists each block, its command lines as run,
and its seconds (wall clock and CPU).
"""

from __future__ import annotations

import pathlib

import pytest

from tests.conftest import REPO_ROOT, SHARED_DATA
from tests.doc_blocks import blocks
from tests.doc_data import mirror
from tests.doc_runner import run_doc

DOCS = [
    path
    for path in [REPO_ROOT / "README.md", REPO_ROOT / "CONTRIBUTING.md"]
    + sorted((REPO_ROOT / "docs").glob("*.md"))
    if path.exists() and blocks(path)
]


@pytest.fixture(scope="session")
def sliced_data(tmp_path_factory) -> pathlib.Path:
    """`../shared/data` with its big files cut to their first records (tests/doc_data.py)."""
    target = tmp_path_factory.mktemp("shared") / "data"
    mirror(SHARED_DATA, target)
    return target


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(REPO_ROOT)))
def test_doc_commands_run(doc: pathlib.Path, tmp_path, sliced_data):
    result = run_doc(blocks(doc), tmp_path, sliced_data)
    print(f"{doc.relative_to(REPO_ROOT)}: {result.report()}")
    assert result.failure is None, result.failure
