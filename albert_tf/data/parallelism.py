"""`available_cores`: how many worker processes the data builder uses by default."""

from __future__ import annotations

import os


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one).

    `os.cpu_count()` counts the machine's cores even when a container or
    `taskset` allows fewer; `sched_getaffinity` counts the allowed ones.

    Example:
    >>> available_cores() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)
