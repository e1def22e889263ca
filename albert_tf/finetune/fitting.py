"""The fine-tuning recipe every task family trains with, around plain Keras `compile`/`fit`.

`train(model, dataset, num_examples, config, output_dir, strategy, loss, metrics)` compiles
with the original's optimizer recipe (`create_optimizer`: AdamW or LAMB, linear warmup over
`warmup_proportion` of the steps, then linear decay to 0, global-norm clipping), fits for
about `num_train_epochs` passes with resumable callbacks, and saves the model. What it leaves
in `output_dir` (the driver adds the run files, `albert_tf.export.finetuned_run`):

    checkpoints/epoch-NN.weights.h5   weights after each epoch
    backup/                           `AtomicBackupAndRestore`: rerunning resumes a killed fit
    logs/train                        TensorBoard scalars
    logs/profile/train                `profile_steps`: the profiler trace (Keras' TensorBoard)
    model.keras                       the fine-tuned Keras model (written last, atomically)
"""

from __future__ import annotations

import logging
import os
from typing import Any

import keras
import tensorflow as tf

from albert_tf.export.finetuned_run import save_finetuned_model
from albert_tf.finetune.atomic_backup import AtomicBackupAndRestore
from albert_tf.finetune.epoch_weights import EpochWeights
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.scalar_logger import ScalarLogger
from albert_tf.training.optimizers import create_optimizer


def plan_steps(num_examples: int, batch_size: int, num_epochs: float) -> tuple[int, int]:
    """(steps per Keras epoch, Keras epochs) for about `num_epochs` passes over the data.

    The original trains `int(num_examples * num_epochs / batch_size)` steps; Keras counts whole
    epochs, so the total is rounded to a multiple of an epoch (or one shorter epoch when less
    than one pass is asked) and the schedule ends exactly at the last step.

    Example:
        >>> plan_steps(2490, 32, 3.0)  # 233 steps in the original; 3 epochs of 77 here.
        (77, 3)
    """
    total_steps = max(1, int(num_examples * num_epochs) // batch_size)
    steps_per_epoch = min(max(1, num_examples // batch_size), total_steps)
    return steps_per_epoch, max(1, round(total_steps / steps_per_epoch))


def compile_for_finetuning(
    model: keras.Model,
    config: FinetuneConfig,
    strategy: tf.distribute.Strategy,
    total_steps: int,
    loss: Any,
    metrics: list[Any],
) -> None:
    """`model.compile` with the optimizer recipe, XLA and `steps_per_execution` of `config`."""
    with strategy.scope():
        model.compile(
            optimizer=create_optimizer(
                config.optimizer,
                learning_rate=config.learning_rate,
                num_train_steps=total_steps,
                num_warmup_steps=int(total_steps * config.warmup_proportion),
                weight_decay=config.weight_decay,
                global_clipnorm=config.clip_norm or None,
                bias_correction=True,
            ),
            loss=loss,
            metrics=metrics,
            jit_compile=config.jit_compile,
            steps_per_execution=config.steps_per_execution,
        )


def finetuning_callbacks(
    output_dir: str, profile_steps: tuple[int, int] | None = None
) -> list[keras.callbacks.Callback]:
    """Resumable fit (`backup/`), weights per epoch (`checkpoints/`), scalars (`logs/`) and,
    with `profile_steps` (first, last batch of the fit, 1-based), their profiler trace.

    Keras' `TensorBoard` callback takes the trace; it writes its own epoch scalars too, so it
    gets its own directory (`logs/profile`) beside the `ScalarLogger`'s.
    """
    callbacks = [
        AtomicBackupAndRestore(os.path.join(output_dir, "backup")),
        EpochWeights(os.path.join(output_dir, "checkpoints", "epoch-{epoch:02d}.weights.h5")),
        ScalarLogger(os.path.join(output_dir, "logs")),
    ]
    if profile_steps is not None:
        callbacks.append(
            keras.callbacks.TensorBoard(
                os.path.join(output_dir, "logs", "profile"),
                write_graph=False,
                profile_batch=profile_steps,
            )
        )
    return callbacks


def train(
    model: keras.Model,
    dataset: tf.data.Dataset,
    num_examples: int,
    config: FinetuneConfig,
    output_dir: str,
    strategy: tf.distribute.Strategy,
    loss: Any,
    metrics: list[Any],
    trainer: keras.Model | None = None,
) -> dict[str, Any]:
    """Compiles, fits `dataset` (repeating, batched) for `config`'s epochs, saves the model.

    `trainer`: the model that is compiled and fit in `model`'s place, one that trains `model`
    (e.g. a `keras.distillation.Distiller` whose student it is); `model` is what is saved.

    Returns:
        `train_examples`, `train_steps`, `train_seconds` and the last `train/<metric>`.
    """
    steps_per_epoch, epochs = plan_steps(
        num_examples, config.train_batch_size, config.num_train_epochs
    )
    total_steps = steps_per_epoch * epochs
    trainer = trainer or model
    compile_for_finetuning(trainer, config, strategy, total_steps, loss, metrics)
    logging.info(
        "Fine-tuning on %d examples: %d steps (%d epochs of %d), warmup %d.",
        num_examples,
        total_steps,
        epochs,
        steps_per_epoch,
        int(total_steps * config.warmup_proportion),
    )
    start_time = tf.timestamp()
    history = trainer.fit(
        dataset,
        epochs=epochs,
        steps_per_epoch=steps_per_epoch,
        callbacks=finetuning_callbacks(output_dir, config.profile_range()),
        shuffle=False,  # The dataset shuffles itself (a Dataset ignores Keras's shuffle).
        verbose=2,
    )
    seconds = float(tf.timestamp() - start_time)
    save_finetuned_model(model, output_dir)
    results: dict[str, Any] = {
        "train_examples": num_examples,
        "train_steps": total_steps,
        "train_seconds": seconds,
    }
    for name, values in history.history.items():
        results[f"train/{name}"] = float(values[-1])
    return results


def optimizer_step(model: keras.Model) -> int:
    """The optimizer's step count (0 for a model loaded without its optimizer)."""
    optimizer = getattr(model, "optimizer", None)
    return int(optimizer.iterations) if optimizer is not None else 0
