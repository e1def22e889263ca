"""`atomic_output_directory`: build an output directory under a temp name, rename at the end.

A reader never sees a half-written output: files are written into a sibling
temporary directory that replaces `path` only when everything succeeded. An
existing `path` is refused unless `overwrite`; on failure the temp directory is
removed and `path` is left as it was.

Example:
>>> with atomic_output_directory("/tmp/out") as directory:
...     write_files_into(directory)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator


def refuse_existing(path: str, overwrite: bool) -> None:
    """Raises `FileExistsError` when `path` exists and `overwrite` is False."""
    if os.path.lexists(path) and not overwrite:
        raise FileExistsError(
            f"{path} already exists; pass --overwrite (overwrite=True) to replace it."
        )


@contextlib.contextmanager
def atomic_output_directory(path: str, overwrite: bool = False) -> Iterator[str]:
    """Yields a temporary directory that becomes `path` when the block succeeds."""
    path = os.path.abspath(os.fspath(path))
    refuse_existing(path, overwrite)
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    temp_dir = tempfile.mkdtemp(prefix=f".tmp-{os.path.basename(path)}-", dir=parent)
    try:
        yield temp_dir
        refuse_existing(path, overwrite)  # Something may have appeared meanwhile.
        backup = None
        if os.path.lexists(path):
            backup = tempfile.mkdtemp(prefix=f".old-{os.path.basename(path)}-", dir=parent)
            os.rmdir(backup)
            os.replace(path, backup)
        os.replace(temp_dir, path)
        if backup is not None:
            if os.path.isdir(backup) and not os.path.islink(backup):
                shutil.rmtree(backup)
            else:
                os.remove(backup)
    finally:
        if os.path.exists(temp_dir):
            shutil.rmtree(temp_dir, ignore_errors=True)
