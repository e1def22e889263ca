"""Timing shared by the benchmarks: settings measured in interleaved rounds.

Interleaving (one step of every setting per round) spreads the load of other processes on a
shared machine over all settings alike, so their ratios hold even when absolute figures move.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def interleaved_seconds(runners: dict[str, Callable[[], object]], warmup: int, rounds: int) -> dict:
    """Seconds of each timed step per setting; one step of every setting per round."""
    for name, run_one_step in runners.items():
        start = time.perf_counter()
        for _ in range(warmup):
            run_one_step()
        print(f"  warmed up {name} ({time.perf_counter() - start:.0f} s)", flush=True)
    seconds = {name: [] for name in runners}
    for _ in range(rounds):
        for name, run_one_step in runners.items():
            start = time.perf_counter()
            run_one_step()
            seconds[name].append(time.perf_counter() - start)
    return seconds


def median_rates(seconds: dict, counts: dict | int) -> dict[str, float]:
    """Items per second of each setting: its count (`counts[name]`, or one count for all) over
    the median of its `interleaved_seconds`.

    >>> median_rates({"a": [1.0, 2.0, 4.0], "b": [0.5]}, {"a": 4, "b": 1})
    {'a': 2.0, 'b': 2.0}
    """
    return {
        name: (counts[name] if isinstance(counts, dict) else counts) / statistics.median(times)
        for name, times in seconds.items()
    }
