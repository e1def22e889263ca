"""Learning curves from a pretraining run's TensorBoard event files (no tensorboard needed)."""

from __future__ import annotations

import glob
import os

import tensorflow as tf
from tensorflow.core.util import event_pb2


def read_scalars(log_dir: str, names: tuple[str, ...]) -> dict[str, list[tuple[int, float]]]:
    """`{name: [(step, value), ...]}` sorted by step; a step written twice (a resumed run
    repeats the steps after its last checkpoint) keeps the last value written.

    Example:
    >>> read_scalars("/nonexistent", ("loss",))
    {'loss': []}
    """
    values: dict[str, dict[int, float]] = {name: {} for name in names}
    for path in sorted(glob.glob(os.path.join(log_dir, "events.out.tfevents.*"))):
        for record in tf.data.TFRecordDataset(path):
            event = event_pb2.Event.FromString(record.numpy())
            for value in event.summary.value:
                if value.tag in values:
                    values[value.tag][int(event.step)] = float(tf.make_ndarray(value.tensor))
    return {name: sorted(points.items()) for name, points in values.items()}
