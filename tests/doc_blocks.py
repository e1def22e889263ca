"""The shell command blocks of the Markdown docs, as the docs test runs them.

Every ```` ```bash ```` fenced block of README.md and docs/*.md is a command a reader may paste
into a shell at the repository root; the docs test (tests/test_docs_commands.py) runs them all,
in order, one document at a time. A block that cannot run there (hours of training, a GPU, a
server, another machine) says so on the line right above its fence, and the test reports it:

    _Not run by the docs test: REASON._
    ```bash
    ...
    ```

Other fences (```` ```python ````, ```` ```text ````, ...) are not commands and are not run.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re

_REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^_Not run by the docs test: (?P<reason>.+?)\.?_\s*$")
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<info>[^`\s]*)")


@dataclasses.dataclass(frozen=True)
class Block:
    """One ```` ```bash ```` block: where it is, its text, and why it is not run (if marked)."""

    path: pathlib.Path
    line: int  # Of the opening fence, 1-based, as an editor shows it.
    text: str
    skip_reason: str | None = None

    @property
    def name(self) -> str:
        """The doc's path, relative to the repository root where it is in it."""
        path = self.path.resolve()
        return str(path.relative_to(_REPO_ROOT) if path.is_relative_to(_REPO_ROOT) else path)

    @property
    def where(self) -> str:
        """`doc:line` of the opening fence."""
        return f"{self.name}:{self.line}"


def blocks(path: pathlib.Path) -> list[Block]:
    """The bash blocks of the Markdown file `path`, in document order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        # The block runs to the next fence of the same kind at least as long (CommonMark).
        fence = opening["fence"]
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        if opening["info"] == "bash":
            marker = MARKER.match(lines[index - 1]) if index > 0 else None
            text = "\n".join(lines[index + 1 : end]) + "\n"
            found.append(Block(path, index + 1, text, marker and marker["reason"]))
        index = end + 1
    return found
