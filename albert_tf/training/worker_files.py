"""`WorkerFiles`: where each worker of a pretraining run writes; only the chief's files stay."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import tensorflow as tf


class WorkerFiles:
    """The chief/worker roles of a run over `workdir`, and where each one writes.

    Every worker of a multi-worker run must take part in a save (it may use
    collectives), but only the chief's files are kept: the others write to a
    scratch directory deleted afterwards. Single-host runs are their own chief.
    """

    def __init__(self, strategy: tf.distribute.Strategy, workdir: str):
        self.workdir = workdir
        # True on the chief (worker 0) of a multi-worker run and on every single-host run.
        self.is_chief = bool(strategy.extended.should_checkpoint)
        resolver = getattr(strategy, "cluster_resolver", None)
        self.worker_id = int(getattr(resolver, "task_id", 0) or 0) if resolver is not None else 0

    @contextlib.contextmanager
    def write_location(self, directory: str) -> Iterator[str]:
        """`directory` on the chief; a scratch copy elsewhere, deleted after."""
        if self.is_chief:
            yield directory
            return
        scratch = os.path.join(self.workdir, f".worker-{self.worker_id}-scratch")
        tf.io.gfile.makedirs(scratch)
        try:
            yield scratch
        finally:
            tf.io.gfile.rmtree(scratch)

    def summary_writer(self, name: str) -> Any:
        """TensorBoard writer of `workdir/logs/<name>` on the chief; a no-op elsewhere."""
        if not self.is_chief:
            return tf.summary.create_noop_writer()
        return tf.summary.create_file_writer(os.path.join(self.workdir, "logs", name))
