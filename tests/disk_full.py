"""Making writes fail part-way, as a full disk does, without a small file system.

* `file_size_limit(n)`: `RLIMIT_FSIZE` for this process, so that every write past `n` bytes of
  a file fails (errno EFBIG), in TensorFlow's C++ writers as in Python; SIGXFSZ is ignored
  meanwhile so the write fails instead of killing the process. The soft limit is restored after.
* `FailingFile`: a file object whose writes fail with ENOSPC once `n` bytes went through, for
  Python writers that open their files through a patchable function.
"""

from __future__ import annotations

import contextlib
import errno
import resource
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def file_size_limit(max_bytes: int) -> Iterator[None]:
    """Writes past `max_bytes` of any file fail (EFBIG) inside the block."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous_handler)


class FailingFile:
    """Wraps a binary file; a write that would take it past `max_bytes` raises ENOSPC."""

    def __init__(self, handle, max_bytes: int):
        self._handle = handle
        self._left = max_bytes

    def write(self, data: bytes) -> int:
        if len(data) > self._left:
            raise OSError(errno.ENOSPC, "No space left on device")
        self._left -= len(data)
        return self._handle.write(data)

    def __getattr__(self, name):
        return getattr(self._handle, name)
