"""The pieces of the pretraining loop: step counts between events, logging, checks, tracing.

`albert_tf.training.pretrain` runs the loop: it calls the train function for the steps up to
the next event (`steps_until_next_event`), adds the metric sums to a `TrainWindow`, logs the
window every `log_every_steps` and saves (and evaluates) at the event steps; a `StepProfiler`
traces the steps of `--profile_steps`.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Iterator
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.training.pretrain_config import PretrainConfig
from albert_tf.training.pretrain_step import SUM_NAMES, metrics_from_sums
from albert_tf.training.summaries import write_scalars

# Metrics shown as they are (not averaged over the run) by the progress bar.
_PROGRESS_METRICS = (
    "masked_lm_accuracy",
    "masked_lm_loss",
    "sentence_order_accuracy",
    "sentence_order_loss",
)


class TrainWindow:
    """Metric sums and wall time since the last log line."""

    def __init__(self, first_step: int):
        self.first_step = first_step
        self.start = time.perf_counter()
        self.sums = np.zeros(len(SUM_NAMES))

    def add(self, sums: np.ndarray) -> None:
        self.sums += sums

    def seconds(self) -> float:
        return max(time.perf_counter() - self.start, 1e-9)


def is_event_step(config: PretrainConfig, step: int) -> bool:
    """A saving (and evaluation) step: every `save_checkpoints_steps`, and the last."""
    return step % config.save_checkpoints_steps == 0 or step == config.num_train_steps


def steps_until_next_event(config: PretrainConfig, step: int) -> int:
    """Steps of the next call: stop exactly at logging and saving steps, and where the
    profiler trace of `profile_steps` starts and ends."""
    boundaries = [
        config.steps_per_execution,
        config.num_train_steps - step,
        config.save_checkpoints_steps - step % config.save_checkpoints_steps,
        config.log_every_steps - step % config.log_every_steps,
    ]
    profile = config.profile_range()
    if profile is not None:
        first, last = profile
        boundaries += [bound - step for bound in (first - 1, last) if bound > step]
    return max(1, min(boundaries))


class StepProfiler:
    """A profiler trace of training steps `first`..`last` (1-based, inclusive) in `log_dir`.

    TensorBoard's Profile tab reads it from `log_dir/plugins/profile/`. The loop wraps each
    call of the train function in `steps(step, num_steps)`; `steps_until_next_event` ends
    the calls where the trace starts and stops, so it holds exactly those steps (a resumed run
    traces those still ahead). Leaving the `with` block stops a trace still running.

    Args:
        window: (first, last) step, or None for no trace.
        log_dir: the run's summary directory the trace goes under.
    """

    def __init__(self, window: tuple[int, int] | None, log_dir: str):
        self.window = window
        self.log_dir = log_dir
        self._tracing = False

    @contextlib.contextmanager
    def steps(self, step: int, num_steps: int) -> Iterator[None]:
        """Around the call that runs steps `step + 1` to `step + num_steps`."""
        if self.window is None or not self.window[0] <= step + 1 <= self.window[1]:
            yield
            return
        if not self._tracing:
            tf.profiler.experimental.start(self.log_dir)
            self._tracing = True
        with tf.profiler.experimental.Trace("train", step_num=step + 1):
            yield
        if step + num_steps >= self.window[1]:
            self._stop()

    def _stop(self) -> None:
        tf.profiler.experimental.stop()
        self._tracing = False
        logging.info("Wrote the profiler trace of steps %d-%d to %s.", *self.window, self.log_dir)

    def __enter__(self) -> StepProfiler:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._tracing:
            self._stop()


def check_finite(sums: np.ndarray, step: int, latest_checkpoint: str | None) -> None:
    """Raises `FloatingPointError` (before any save) when the loss is not finite."""
    if np.all(np.isfinite(sums)):
        return
    loss = metrics_from_sums(sums)
    raise FloatingPointError(
        f"The training loss is not finite at step {step} (masked_lm_loss="
        f"{loss['masked_lm_loss']}, sentence_order_loss={loss['sentence_order_loss']}). "
        f"Stopped without saving; the last good checkpoint, "
        f"{latest_checkpoint or 'none'}, is kept. Lower --learning_rate, "
        "raise --num_warmup_steps or use --precision float32, then rerun to resume."
    )


def log_train_window(
    window: TrainWindow,
    step: int,
    config: PretrainConfig,
    optimizer: keras.optimizers.Optimizer,
    writer: Any,
) -> dict[str, float]:
    """Logs and writes the window's metrics; returns them as `train/<name>`."""
    metrics = metrics_from_sums(window.sums, config.sentence_order_loss_weight)
    learning_rate = float(keras.ops.convert_to_numpy(optimizer.learning_rate))
    examples_per_second = (step - window.first_step) * config.train_batch_size / window.seconds()
    scalars = {
        **metrics,
        "learning_rate": learning_rate,
        "examples_per_second": examples_per_second,
    }
    write_scalars(writer, scalars, step)
    logging.info(
        "step %d/%d: loss %.4f, masked_lm_accuracy %.4f, sentence_order_accuracy %.4f, "
        "learning_rate %.3g, %.1f examples/s",
        step,
        config.num_train_steps,
        metrics["loss"],
        metrics["masked_lm_accuracy"],
        metrics["sentence_order_accuracy"],
        learning_rate,
        examples_per_second,
    )
    return {f"train/{name}": value for name, value in scalars.items()}


def progress_bar(config: PretrainConfig, step: int, is_chief: bool) -> keras.utils.Progbar | None:
    """A live progress bar on an interactive terminal (logs cover the other cases)."""
    if not (is_chief and sys.stdout.isatty()):
        return None
    progress = keras.utils.Progbar(
        config.num_train_steps, stateful_metrics=_PROGRESS_METRICS, unit_name="step"
    )
    progress.update(step)
    return progress
