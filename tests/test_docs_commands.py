"""Every bash block of README.md and docs/*.md runs (tests/doc_runner.py), on tiny data
(tests/doc_data.py) with size flags (tests/doc_overrides.py); blocks marked
`_Not run by the docs test: REASON._` are reported with their reason. The report (`-rP`, or
`-s`) lists each block, its command lines as run and its seconds.
"""

from __future__ import annotations

import pathlib

import pytest

from tests.conftest import REPO_ROOT, SHARED_DATA
from tests.doc_blocks import blocks
from tests.doc_data import mirror
from tests.doc_runner import run_doc

DOCS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


@pytest.fixture(scope="session")
def sliced_data(tmp_path_factory) -> pathlib.Path:
    """`../shared/data` with its big files cut to their first records (tests/doc_data.py)."""
    target = tmp_path_factory.mktemp("shared") / "data"
    mirror(SHARED_DATA, target)
    return target


@pytest.mark.slow
@pytest.mark.parametrize(
    "doc",
    [doc for doc in DOCS if blocks(doc)],
    ids=lambda doc: str(doc.relative_to(REPO_ROOT)),
)
def test_doc_commands_run(doc: pathlib.Path, tmp_path, sliced_data):
    result = run_doc(blocks(doc), tmp_path, sliced_data)
    print(f"{doc.relative_to(REPO_ROOT)}: {result.report()}")
    assert result.failure is None, result.failure
