"""`explain_disk_full`: a write that fails for lack of space becomes a `DiskFullError`.

Writers keep the previous output intact on any failure (`albert_tf.atomic_files`, checkpoint
managers, `*.incomplete` shards); this module only makes the error say which path failed, how
much space the write needed and how much is free, instead of an `OSError` or a TensorFlow
`ResourceExhaustedError` deep in a traceback.

Recognized: `OSError` with errno ENOSPC (disk full), EDQUOT (quota) or EFBIG (file size limit,
e.g. `ulimit -f`), the TensorFlow errors its file system maps them to
(`ResourceExhaustedError`, `OutOfRangeError`) raised while writing, and Rust writers'
(safetensors) errors that carry one of these errno values.

Example:
    >>> import errno
    >>> try:
    ...     with explain_disk_full(f"{tmp_dir}/out", needed_bytes=3 * 2**20):
    ...         raise OSError(errno.ENOSPC, "No space left on device")
    ... except DiskFullError as error:
    ...     print(str(error).split(" (")[0])
    not enough disk space to write .../out: about 3.0 MB needed
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from albert_tf.errors import DiskFullError

_SPACE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def is_disk_full(error: BaseException) -> bool:
    """True for a write error caused by a full disk, a quota or a file size limit."""
    if isinstance(error, OSError) and error.errno in _SPACE_ERRNOS:
        return True
    if any(f"(os error {code})" in str(error) for code in _SPACE_ERRNOS):
        return True  # Rust writers (safetensors) report the errno in their message.
    tf = sys.modules.get("tensorflow")  # No TensorFlow loaded: no TensorFlow error either.
    if tf is None or not isinstance(error, tf.errors.OpError):
        return False
    return isinstance(error, (tf.errors.ResourceExhaustedError, tf.errors.OutOfRangeError))


def format_bytes(size: float) -> str:
    """`1536` -> `'1.5 KB'` (powers of 1024).

    Example:
        >>> format_bytes(3 * 2**30), format_bytes(10)
        ('3.0 GB', '10 B')
    """
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def free_bytes(path: str) -> int | None:
    """Free space of the file system that holds `path` (or its nearest existing parent)."""
    path = os.path.abspath(path)
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def variables_bytes(variables: Iterable) -> int:
    """Bytes of the values of TensorFlow/Keras variables: what a checkpoint of them needs."""
    import tensorflow as tf  # Loaded already (there are variables); albert_tf.data imports this.

    total = 0
    for variable in variables:
        elements = int(np.prod(tuple(variable.shape), dtype=np.int64))
        total += elements * tf.as_dtype(variable.dtype).size  # Keras dtypes are strings.
    return total


@contextlib.contextmanager
def explain_disk_full(path: str, needed_bytes: int | Callable[[], int]) -> Iterator[None]:
    """Turns a lack-of-space write error in the block into a `DiskFullError` naming `path`.

    Args:
        path: what was being written (file or directory), named in the message.
        needed_bytes: the estimated size of the write, or a function computing it then.
    """
    try:
        yield
    except Exception as error:
        if isinstance(error, DiskFullError) or not is_disk_full(error):
            raise
        needed = needed_bytes() if callable(needed_bytes) else needed_bytes
        free = free_bytes(path)
        free_text = "unknown" if free is None else format_bytes(free)
        raise DiskFullError(
            f"not enough disk space to write {path}: about {format_bytes(needed)} needed "
            f"({free_text} free; {_reason(error)})",
            where=path,
            fix="free some space or write to another disk, then rerun (the previous output is "
            "intact)",
        ) from error


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.errno is not None:
        return os.strerror(error.errno)
    message = getattr(error, "message", "") or str(error)
    return " ".join(message.split())[:120] or type(error).__name__
