"""The pieces of the pretraining loop: step counts between events, logging, checks.

`albert_tf.training.pretrain` runs the loop: it calls the train function for the steps up to
the next event (`steps_until_next_event`), adds the metric sums to a `TrainWindow`, logs the
window every `log_every_steps` and saves (and evaluates) at the event steps.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import keras
import numpy as np

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
    """Steps of the next call: stop exactly at logging and saving steps."""
    boundaries = [
        config.steps_per_execution,
        config.num_train_steps - step,
        config.save_checkpoints_steps - step % config.save_checkpoints_steps,
        config.log_every_steps - step % config.log_every_steps,
    ]
    return max(1, min(boundaries))


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
