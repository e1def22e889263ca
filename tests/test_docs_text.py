"""The user's guide as text: README.md stays a short path (at most 250 lines), README and docs/
link only to files that exist, and speak of the project as it is, not of how it was made."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO_ROOT

GUIDES = [REPO_ROOT / "README.md", REPO_ROOT / "CONTRIBUTING.md"] + sorted(
    (REPO_ROOT / "docs").glob("*.md")
)
README_MAX_LINES = 250
# Words about the work rather than the product, and paths of someone's scratch runs.
MAKING_OF = re.compile(
    r"\bthe issue\b|\bthis change\b|\bbefore this change\b|\bmust-show\b|\bheavy-run\b"
    r"|/tmp/e\d+|\bREFERENCE\.md\b",
    re.IGNORECASE,
)
# [text](target): a relative target, without its #anchor.
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


def _prose(text: str) -> str:
    """`text` with its code blocks and spans blanked (their newlines kept, for line numbers)."""
    return CODE.sub(lambda match: re.sub(r"[^\n]", " ", match.group(0)), text)


def test_readme_is_at_most_250_lines():
    lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines"


@pytest.mark.parametrize("guide", GUIDES, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_guides_link_to_files_that_exist_and_say_nothing_of_their_making(guide):
    text = guide.read_text(encoding="utf-8")
    problems = [
        f"{guide.name}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)!r}"
        for match in MAKING_OF.finditer(text)
    ]
    for match in LINK.finditer(_prose(text)):
        target = match.group(1)
        if "://" in target or target.startswith("mailto:"):
            continue
        if not (guide.parent / target).exists():
            line = text.count("\n", 0, match.start()) + 1
            problems.append(f"{guide.name}:{line}: link to {target}, which does not exist")
    assert not problems, "\n".join(problems)
