"""Writing outputs so that a reader never sees them half-written.

Everything is written under a temporary name in the destination's directory and renamed into
place when complete: a crash, a full disk or a SIGKILL leaves the previous content (or nothing),
never a file or directory that looks complete but is not.

* `atomic_output_directory(path)`: a directory built in a sibling temp directory, renamed at
  the end; an existing `path` is refused unless `overwrite`. The writer holds an `flock` on its
  temp directory, so the next writer of `path` can tell the temp directories of killed writers
  (no lock, the kernel dropped it) from live ones and removes them: a SIGKILL's leftovers do not
  pile up beside the output.
* `atomic_output_file(path)`: a temp path (same suffix, same directory) renamed at the end, for
  writers that take a path (e.g. `keras.Model.save`).
* `atomic_write_text(path, text)`, `atomic_copy_file(source, path)`: one-call forms.
* `remove_temp_leftovers(output)`: every temp name a killed writer of `output` left, in it and
  beside it; `output_lock` calls it when it takes over the lock of a job that died holding it.

Example:
    >>> import os
    >>> root = tmp_dir
    >>> with atomic_output_directory(os.path.join(root, "out")) as directory:
    ...     atomic_write_text(os.path.join(directory, "a.txt"), "hello")
    >>> sorted(os.listdir(root)), open(os.path.join(root, "out", "a.txt")).read()
    (['out'], 'hello')
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import logging
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator

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
    prefix = f".tmp-{os.path.basename(path)}-"
    removed = remove_abandoned_temp_dirs(parent, prefix)
    if removed:
        logging.warning("Removed the temp directories of killed writers of %s: %s", path, removed)
    temp_dir = tempfile.mkdtemp(prefix=prefix, dir=parent)
    held = _hold(temp_dir)
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
        os.close(held)


# A temp directory younger than this is never removed: its writer may not have locked it yet.
ABANDONED_AFTER_SECONDS = 60.0


def remove_abandoned_temp_dirs(
    parent: str, prefix: str, min_age: float = ABANDONED_AFTER_SECONDS
) -> list[str]:
    """Removes the `parent/prefix*` temp directories no live writer holds; returns them.

    `atomic_output_directory` locks its temp directory for as long as it writes it. A lock
    that can be taken means its writer died (SIGKILL, power loss) before cleaning up.
    `min_age`: younger ones are kept (0 when the caller holds the output's lock, so that no
    writer can be between creating and locking one).
    """
    removed = []
    for candidate in glob.glob(os.path.join(glob.escape(parent), glob.escape(prefix) + "*")):
        if os.path.islink(candidate) or not os.path.isdir(candidate):
            continue
        try:
            if time.time() - os.stat(candidate).st_mtime < min_age:
                continue
            fd = os.open(candidate, os.O_RDONLY)
        except OSError:  # Gone meanwhile, or not ours to read.
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # A live writer, or a file system without locks: cannot tell.
            continue
        else:
            shutil.rmtree(candidate, ignore_errors=True)
            removed.append(candidate)
        finally:
            os.close(fd)
    return removed


def remove_temp_leftovers(
    output: str, live_outputs: Callable[[str, list[str]], set[str]] | None = None
) -> list[str]:
    """Removes what killed writers of `output` left; returns the removed paths.

    For the caller that holds `output`'s lock after a holder died with it: every writer of
    `output` (and of what is inside it) then was that holder. Removed: the temp directories
    beside `output` (`atomic_output_directory`), temp files beside it (`atomic_output_file`),
    and every `.tmp-*` name inside it. `live_outputs(directory, names)` names the entries of a
    directory that other live jobs hold (nested outputs with their own lock): such a directory
    keeps its temp names and those entries are not entered.
    """
    output = os.path.abspath(os.fspath(output))
    parent, name = os.path.split(output)
    removed = remove_abandoned_temp_dirs(parent, f".tmp-{name}-", min_age=0.0)
    for candidate in glob.glob(os.path.join(glob.escape(parent), f".tmp-*-{glob.escape(name)}")):
        if _is_temp_file_of(os.path.basename(candidate), name) and _remove(candidate):
            removed.append(candidate)
    if not os.path.isdir(output) or os.path.islink(output):
        return removed
    for directory, subdirs, files in os.walk(output):
        held = live_outputs(directory, [*subdirs, *files]) if live_outputs else set()
        for entry in [*subdirs, *files]:
            path = os.path.join(directory, entry)
            if entry.startswith(".tmp-") and not _temp_of(entry, held) and _remove(path):
                removed.append(path)
        subdirs[:] = [e for e in subdirs if not e.startswith(".tmp-") and e not in held]
    return removed


def _temp_of(entry: str, outputs: set[str]) -> bool:
    """Whether `entry` is a temp name of one of `outputs` (same directory)."""
    return any(
        entry.startswith(f".tmp-{output}-") or _is_temp_file_of(entry, output) for output in outputs
    )


def _is_temp_file_of(entry: str, name: str) -> bool:
    """Whether `entry` is `atomic_output_file`'s temp name for `name`: `.tmp-<uuid4 hex>-<name>`."""
    return re.fullmatch(r"\.tmp-[0-9a-f]{32}-" + re.escape(name), entry) is not None


def _remove(path: str) -> bool:
    """Removes a file or directory tree; False when it could not (gone, not ours)."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    except OSError:
        return False
    return True


def _hold(directory: str) -> int:
    """An exclusive `flock` on `directory`, held until the returned descriptor is closed."""
    fd = os.open(directory, os.O_RDONLY)
    with contextlib.suppress(OSError):  # No locks here (some network file systems): no sweeping.
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


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
