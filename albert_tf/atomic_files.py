"""Writing outputs so that a reader never sees them half-written.

Everything is written under a temporary name in the destination's directory and renamed into
place when complete: a crash, a full disk or a SIGKILL leaves the previous content (or nothing),
never a file or directory that looks complete but is not.

* `atomic_output_directory(path)`: a directory built in a sibling temp directory, renamed at
  the end; an existing `path` is refused unless `overwrite`.
* `atomic_output_file(path)`: a temp path (same suffix, same directory) renamed at the end, for
  writers that take a path (e.g. `keras.Model.save`).
* `atomic_write_text(path, text)`, `atomic_copy_file(source, path)`: one-call forms.

Example:
    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> with atomic_output_directory(os.path.join(root, "out")) as directory:
    ...     atomic_write_text(os.path.join(directory, "a.txt"), "hello")
    >>> sorted(os.listdir(root)), open(os.path.join(root, "out", "a.txt")).read()
    (['out'], 'hello')
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator

from albert_tf.errors import ExistingOutputError


def refuse_existing(path: str, overwrite: bool) -> None:
    """Raises `ExistingOutputError` (a `FileExistsError`) when `path` exists, unless `overwrite`."""
    if os.path.lexists(path) and not overwrite:
        raise ExistingOutputError(
            f"{path} already exists; pass --overwrite (overwrite=True) to replace it"
        )


@contextlib.contextmanager
def atomic_output_directory(path: str, overwrite: bool = False) -> Iterator[str]:
    """Yields a temporary directory that becomes `path` when the block succeeds.

    On failure the temporary directory is removed and `path` is left as it was.
    """
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


@contextlib.contextmanager
def atomic_output_file(path: str) -> Iterator[str]:
    """Yields a temporary path beside `path` (same suffix) that replaces `path` on success."""
    path = os.fspath(path)
    directory, name = os.path.split(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    temp_path = os.path.join(directory, f".tmp-{uuid.uuid4().hex}-{name}")
    try:
        yield temp_path
        os.replace(temp_path, path)
    finally:
        if os.path.lexists(temp_path):
            os.remove(temp_path)


def atomic_write_text(path: str, text: str) -> None:
    """Writes `text` to `path` through a temp file and a rename (never half-written).

    Uses `tf.io.gfile`, so `path` may also be on GCS or another TensorFlow filesystem.
    """
    import tensorflow as tf  # Here, not at the top: the TF-free stages import this module.

    directory = os.path.dirname(path)
    if directory:
        tf.io.gfile.makedirs(directory)
    temp_path = os.path.join(directory, f".tmp-{uuid.uuid4().hex}-{os.path.basename(path)}")
    with tf.io.gfile.GFile(temp_path, "w") as f:
        f.write(text)
    tf.io.gfile.rename(temp_path, path, overwrite=True)


def atomic_copy_file(source: str, path: str) -> None:
    """Copies `source` to `path` (a no-op when they are the same file)."""
    if os.path.exists(path) and os.path.samefile(source, path):
        return
    with atomic_output_file(path) as temp_path:
        shutil.copyfile(source, temp_path)
