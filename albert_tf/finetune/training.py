"""The steps every fine-tuning task family shares, around plain Keras `compile`/`fit`.

A task's run (see `albert_tf.finetune.classification.run` for a whole one):

    strategy, precision = start(config)
    with strategy.scope():
        encoder = load_finetuning_encoder(config, precision)   # + its tokenizer file, casing
        model = TaskModel(encoder.encoder, ...)
    ... read and check the task's inputs ...
    write_run_files(output_dir, config, task_info, encoder.spm_model_file)
    results = train(model, dataset, num_examples, config, output_dir, strategy, loss, metrics)

Shared layout of `output_dir` (task families add their own result files):

    finetune_config.json, task.json   the settings; what the task is (labels, lengths, casing)
    spm.model                         the tokenizer the model was fine-tuned with
    checkpoints/epoch-NN.weights.h5   weights after each epoch
    backup/                           `BackupAndRestore`: rerunning resumes an interrupted fit
    logs/train, logs/eval             TensorBoard scalars
    model.keras                       the fine-tuned Keras model (written last, atomically)

The optimizer recipe is the original's (`create_optimizer`: AdamW or LAMB, linear warmup over
`warmup_proportion` of the steps, then linear decay to 0, global-norm clipping).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from typing import Any

import keras
import tensorflow as tf

from albert_tf.atomic_files import atomic_copy_file, atomic_output_file, atomic_write_text
from albert_tf.config import AlbertConfig
from albert_tf.errors import UserError
from albert_tf.file_names import (
    FINETUNE_CONFIG_FILE,
    FINETUNED_MODEL_FILE,
    SPM_FILE,
    TASK_FILE,
)
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.pretrained_encoder import PretrainedEncoder, load_pretrained_encoder
from albert_tf.finetune.scalar_logger import ScalarLogger
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from albert_tf.training.optimizers import create_optimizer
from albert_tf.training.precision import resolve_precision
from albert_tf.training.strategy import create_strategy


def start(config: FinetuneConfig) -> tuple[tf.distribute.Strategy, str]:
    """Seeds everything and returns the distribution strategy and the resolved precision."""
    keras.utils.set_random_seed(config.seed)
    strategy = create_strategy(config.strategy, config.tpu or None)
    return strategy, resolve_precision(config.precision, strategy, config.jit_compile)


def load_finetuning_encoder(config: FinetuneConfig, precision: str) -> PretrainedEncoder:
    """The encoder to fine-tune, with the tokenizer file and casing resolved and checked.

    Call it inside `strategy.scope()`. The tokenizer is `--spm_model_file` when given (with
    `--do_lower_case`), else the one shipped with the encoder (bundles, converted checkpoints).

    Raises:
        UserError: no tokenizer, or one whose vocabulary or the sequence length does not fit
            the encoder.
    """
    pretrained = load_pretrained_encoder(
        config.init_checkpoint or None, config.albert_config_file or None, dtype=precision
    )
    spm_model_file = config.spm_model_file or pretrained.spm_model_file
    if not spm_model_file:
        raise UserError(
            "no tokenizer",
            where="--spm_model_file",
            fix="pass the SentencePiece model the encoder was pretrained with, or an encoder "
            "bundle that carries one (--init_checkpoint)",
        )
    use_bundled_casing = pretrained.do_lower_case is not None and not config.spm_model_file
    do_lower_case = pretrained.do_lower_case if use_bundled_casing else config.do_lower_case
    vocab_size = AlbertTokenizer(spm_model_file).vocab_size
    check_compatible(pretrained.encoder.config, vocab_size, config, spm_model_file)
    return dataclasses.replace(
        pretrained, spm_model_file=spm_model_file, do_lower_case=do_lower_case
    )


def check_compatible(
    albert_config: AlbertConfig, vocab_size: int, config: FinetuneConfig, spm_model_file: str
) -> None:
    """The tokenizer's vocabulary and the sequence length must fit the encoder."""
    if vocab_size != albert_config.vocab_size:
        raise UserError(
            f"the SentencePiece model has {vocab_size} pieces but the encoder "
            f"({config.init_checkpoint or config.albert_config_file}) has vocab_size "
            f"{albert_config.vocab_size}",
            where=spm_model_file,
            fix="use the tokenizer the encoder was pretrained with",
        )
    if config.max_seq_length > albert_config.max_position_embeddings:
        raise UserError(
            f"max_seq_length {config.max_seq_length} exceeds the encoder's "
            f"max_position_embeddings {albert_config.max_position_embeddings}",
            where="--max_seq_length",
            fix=f"use at most {albert_config.max_position_embeddings}",
        )


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


def finetuning_callbacks(output_dir: str) -> list[keras.callbacks.Callback]:
    """Resumable fit (`backup/`), weights per epoch (`checkpoints/`), scalars (`logs/`)."""
    return [
        keras.callbacks.BackupAndRestore(os.path.join(output_dir, "backup")),
        keras.callbacks.ModelCheckpoint(
            os.path.join(output_dir, "checkpoints", "epoch-{epoch:02d}.weights.h5"),
            save_weights_only=True,
        ),
        ScalarLogger(os.path.join(output_dir, "logs")),
    ]


def train(
    model: keras.Model,
    dataset: tf.data.Dataset,
    num_examples: int,
    config: FinetuneConfig,
    output_dir: str,
    strategy: tf.distribute.Strategy,
    loss: Any,
    metrics: list[Any],
) -> dict[str, Any]:
    """Compiles, fits `dataset` (repeating, batched) for `config`'s epochs, saves the model.

    Returns:
        `train_examples`, `train_steps`, `train_seconds` and the last `train/<metric>`.
    """
    steps_per_epoch, epochs = plan_steps(
        num_examples, config.train_batch_size, config.num_train_epochs
    )
    total_steps = steps_per_epoch * epochs
    compile_for_finetuning(model, config, strategy, total_steps, loss, metrics)
    logging.info(
        "Fine-tuning on %d examples: %d steps (%d epochs of %d), warmup %d.",
        num_examples,
        total_steps,
        epochs,
        steps_per_epoch,
        int(total_steps * config.warmup_proportion),
    )
    start_time = tf.timestamp()
    history = model.fit(
        dataset,
        epochs=epochs,
        steps_per_epoch=steps_per_epoch,
        callbacks=finetuning_callbacks(output_dir),
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


def save_finetuned_model(model: keras.Model, output_dir: str) -> str:
    """Writes `model.keras` into `output_dir` atomically; returns its path."""
    path = os.path.join(output_dir, FINETUNED_MODEL_FILE)
    with atomic_output_file(path) as temp_path:
        model.save(temp_path)
    return path


def load_finetuned_model(output_dir: str, strategy: tf.distribute.Strategy) -> keras.Model:
    """The `model.keras` of a finished run (register its classes first by importing them)."""
    path = os.path.join(output_dir, FINETUNED_MODEL_FILE)
    if not os.path.isfile(path):
        raise UserError(
            f"no fine-tuned {FINETUNED_MODEL_FILE}",
            where=output_dir,
            fix="run with --do_train first, or point --output_dir at a finished run",
        )
    with strategy.scope():
        return keras.saving.load_model(path, compile=False)


def write_run_files(
    output_dir: str, config: FinetuneConfig, task_info: dict[str, Any], spm_model_file: str
) -> None:
    """Writes `finetune_config.json`, `task.json` and `spm.model` (after inputs are checked)."""
    os.makedirs(output_dir, exist_ok=True)
    atomic_write_text(os.path.join(output_dir, FINETUNE_CONFIG_FILE), config.to_json_string())
    atomic_write_text(os.path.join(output_dir, TASK_FILE), json.dumps(task_info, indent=2))
    atomic_copy_file(spm_model_file, os.path.join(output_dir, SPM_FILE))


def read_task_file(output_dir: str) -> dict[str, Any]:
    """The `task.json` a training run wrote into `output_dir`."""
    path = os.path.join(output_dir, TASK_FILE)
    if not os.path.isfile(path):
        raise UserError(
            f"no {TASK_FILE}",
            where=output_dir,
            fix="run with --do_train first, or point --output_dir at a finished run",
        )
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def run_spm_file(output_dir: str) -> str:
    """The tokenizer file a training run copied into `output_dir`."""
    return os.path.join(output_dir, SPM_FILE)
