"""`ScalarLogger`: a Keras callback writing TensorBoard scalars without `tensorboard`.

Keras' `TensorBoard` callback needs the `tensorboard` package; this writes the same scalar
events through `albert_tf.training.summaries.write_scalars`.
"""

from __future__ import annotations

import os

import keras
import tensorflow as tf

from albert_tf.training.summaries import write_scalars


class ScalarLogger(keras.callbacks.Callback):
    """Logs `logs/train` (every `every_steps` and each epoch) and `logs/validation` scalars.

    Args:
        log_dir: parent of the `train` and `validation` event directories.
        every_steps: training steps between two `train` points (Keras' running averages).

    Illustration (not run):
        model.fit(dataset, epochs=3, callbacks=[ScalarLogger("/tmp/run/logs")])
    """

    def __init__(self, log_dir: str, every_steps: int = 100):
        super().__init__()
        self.log_dir = log_dir
        self.every_steps = every_steps
        self._writers: dict[str, tf.summary.SummaryWriter] = {}

    def _writer(self, name: str) -> tf.summary.SummaryWriter:
        if name not in self._writers:
            self._writers[name] = tf.summary.create_file_writer(os.path.join(self.log_dir, name))
        return self._writers[name]

    def _step(self) -> int:
        return int(self.model.optimizer.iterations)

    def _learning_rate(self) -> float:
        optimizer = self.model.optimizer
        rate = optimizer.learning_rate
        return float(rate(optimizer.iterations) if callable(rate) else rate)

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        step = self._step()
        if logs and step % self.every_steps == 0:
            scalars = {name: float(value) for name, value in logs.items()}
            scalars["learning_rate"] = self._learning_rate()
            write_scalars(self._writer("train"), scalars, step)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = logs or {}
        step = self._step()
        train = {k: float(v) for k, v in logs.items() if not k.startswith("val_")}
        validation = {k[4:]: float(v) for k, v in logs.items() if k.startswith("val_")}
        if train:
            write_scalars(self._writer("train"), {f"epoch_{k}": v for k, v in train.items()}, step)
        if validation:
            write_scalars(self._writer("validation"), validation, step)

    def on_train_end(self, logs: dict | None = None) -> None:
        for writer in self._writers.values():
            writer.close()
