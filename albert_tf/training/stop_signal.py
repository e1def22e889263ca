"""SIGTERM during pretraining: catch it, and have every worker agree to stop at one step."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

import tensorflow as tf


@contextlib.contextmanager
def stop_on_sigterm() -> Iterator[threading.Event]:
    """An event set by SIGTERM while the block runs (main thread only)."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    try:
        yield stop
    finally:
        signal.signal(signal.SIGTERM, previous)


class StopVote:
    """Whether SIGTERM reached this worker or, with several workers, any of them.

    Workers must stop at the same step: saving is collective under
    MultiWorkerMirroredStrategy, so one worker leaving alone would hang the
    others. Every worker calls `any_worker_stopping` once per loop turn, in lock
    step; with several workers it sums a 0/1 flag over all of them.
    """

    def __init__(self, strategy: tf.distribute.Strategy):
        self._votes = None
        if not isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy):
            return
        jobs = strategy.cluster_resolver.cluster_spec().as_dict()
        if sum(len(jobs.get(job, ())) for job in ("chief", "worker")) < 2:
            return

        @tf.function
        def votes(flag: tf.Tensor) -> tf.Tensor:
            per_replica = strategy.run(lambda: tf.identity(flag))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

        self._votes = votes

    def any_worker_stopping(self, stop: threading.Event) -> bool:
        if self._votes is None:
            return stop.is_set()
        return bool(self._votes(tf.constant(int(stop.is_set()), tf.int32)).numpy() > 0)
