"""`train_and_evaluate`: ALBERT pretraining (MLM + SOP) with fault-tolerant checkpoints.

Flax-example style: one function takes a `PretrainConfig` and a `workdir` and
does the whole run; rerunning the same command resumes it.

Layout of `workdir`:
    ckpt-<step>.{index,data-*}, checkpoint   last `keep_checkpoint_max` checkpoints
    best/ckpt-<step>.*, best/metrics.json    best by eval masked_lm_accuracy (do_eval)
    logs/train, logs/eval                    TensorBoard summaries
    encoder.keras, albert_config.json       the final encoder, for export/fine-tuning
    pretrain_config.json, eval_results.json

Resuming and the data position: the input order is a deterministic function of
(files, seed, global batch size, number of workers), so a checkpoint only has to
store the step; on restart each pipeline skips the serialized records already
consumed (no parsing: fast, but proportional to the step; tf.data iterator
checkpointing would be O(1) but stores the shuffle buffer and does not work on
every strategy). Changing those settings between restarts changes the order.

Faults: a checkpoint is written (data, then index) before TF atomically swaps
the `checkpoint` state file, so SIGKILL at any moment leaves the previous one
loadable; an unreadable newest checkpoint falls back to the one before
(`restore_latest_readable`). SIGTERM finishes the running steps, saves and
returns. A non-finite loss raises `FloatingPointError` without saving, keeping
the last good checkpoint.

Example:
    >>> config = PretrainConfig(input_file="out/train-*.tfrecord",
    ...                         albert_config_file="albert_config.json",
    ...                         train_batch_size=64, num_train_steps=1000,
    ...                         max_seq_length=128)
    >>> metrics = train_and_evaluate(config, "/tmp/albert_pretrain")
    >>> metrics["train/masked_lm_accuracy"]  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text
from albert_tf.config import AlbertConfig
from albert_tf.data.pretrain_input import check_records, find_unreadable_file, pretrain_dataset
from albert_tf.disk_space import explain_disk_full, variables_bytes
from albert_tf.errors import UserError
from albert_tf.file_names import ALBERT_CONFIG_FILE, ENCODER_FILE
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.output_lock import output_lock
from albert_tf.training.checkpointing import (
    find_checkpoint,
    read_into,
    restore_latest_readable,
)
from albert_tf.training.optimizers import create_optimizer
from albert_tf.training.precision import resolve_precision
from albert_tf.training.pretrain_config import PretrainConfig
from albert_tf.training.pretrain_step import (
    SUM_NAMES,
    disable_optimizer_all_reduce,
    make_replica_eval_step,
    make_replica_train_step,
    make_train_function,
    metrics_from_sums,
)
from albert_tf.training.strategy import create_strategy
from albert_tf.training.summaries import write_scalars

# Metrics shown as they are (not averaged over the run) by the progress bar.
_PROGRESS_METRICS = (
    "masked_lm_accuracy",
    "masked_lm_loss",
    "sentence_order_accuracy",
    "sentence_order_loss",
)


def train_and_evaluate(config: PretrainConfig, workdir: str) -> dict[str, float]:
    """Pretrains (`do_train`) and/or evaluates (`do_eval`); returns the final metrics.

    Returns a flat dict: `step`, `train/<metric>` (the last logging window),
    `eval/<metric>` (the last evaluation) for the metrics `masked_lm_accuracy`,
    `masked_lm_loss`, `sentence_order_accuracy`, `sentence_order_loss`, `loss`,
    and `stopped_by_signal` (1.0 when SIGTERM ended the run early).
    """
    # First: MultiWorkerMirroredStrategy must configure collectives before any
    # TensorFlow op runs (reading records below initializes the runtime).
    strategy = create_strategy(config.strategy, config.tpu)
    albert_config = AlbertConfig.from_json_file(config.albert_config_file)
    _check_config(config, albert_config)
    # Same seed, same initial weights: with the deterministic data order, a run
    # is reproducible (on deterministic kernels) and resumable bit for bit.
    keras.utils.set_random_seed(config.seed)
    # One job per output directory (the chief's lock; other workers write scratch copies).
    with output_lock(workdir if _is_chief(strategy) else None, directory=True):
        return _train_and_evaluate(config, albert_config, strategy, workdir)


def _train_and_evaluate(
    config: PretrainConfig,
    albert_config: AlbertConfig,
    strategy: tf.distribute.Strategy,
    workdir: str,
) -> dict[str, float]:
    run = _Run(config, albert_config, strategy, workdir)
    metrics: dict[str, float] = {}
    if config.do_train:
        metrics.update(run.train())
    if config.do_eval and "eval/masked_lm_accuracy" not in metrics:
        metrics.update(run.evaluate_and_keep_best())
    metrics["step"] = float(run.step)
    if config.do_train and not metrics.get("stopped_by_signal"):
        run.export_encoder()
    if run.is_chief and config.do_eval:
        atomic_write_text(
            os.path.join(workdir, "eval_results.json"),
            json.dumps({k: v for k, v in metrics.items() if k.startswith("eval/")}, indent=2),
        )
    return metrics


def _check_config(config: PretrainConfig, albert_config: AlbertConfig) -> None:
    if config.max_seq_length > albert_config.max_position_embeddings:
        raise UserError(
            f"max_seq_length {config.max_seq_length} exceeds the model's "
            f"max_position_embeddings {albert_config.max_position_embeddings} "
            f"({config.albert_config_file})."
        )
    for name, patterns in (("input_file", config.input_file), ("eval_file", config.eval_file)):
        used = config.do_train if name == "input_file" else config.do_eval
        if used:
            try:
                check_records(
                    patterns,
                    config.max_seq_length,
                    config.max_predictions_per_seq,
                    albert_config.vocab_size,
                    require_token_boundary=config.dynamic_masking and name == "input_file",
                )
            except ValueError as e:
                raise UserError(f"--{name}: {e}") from e


class _Run:
    """State of one pretraining run: model, optimizer, checkpoints, summaries."""

    def __init__(
        self,
        config: PretrainConfig,
        albert_config: AlbertConfig,
        strategy: tf.distribute.Strategy,
        workdir: str,
    ):
        self.config = config
        self.albert_config = albert_config
        self.strategy = strategy
        self.workdir = workdir
        self.is_chief = _is_chief(strategy)
        self.worker_id = _worker_id(strategy)

        with strategy.scope():
            # The dtype policy goes to the layers (not the global policy), so
            # runs with different precisions can share a process.
            self.precision = resolve_precision(config.precision, strategy)
            encoder = AlbertEncoder(albert_config, dtype=self.precision)
            self.model = AlbertPretrainer(encoder)
            self.optimizer = _create_optimizer(config)
            self.optimizer.build(self.model.trainable_variables)
            self.step_variable = tf.Variable(0, dtype=tf.int64, trainable=False, name="step")
        disable_optimizer_all_reduce(self.optimizer)

        self.checkpoint = tf.train.Checkpoint(
            model=self.model, optimizer=self.optimizer, step=self.step_variable
        )
        self.manager = tf.train.CheckpointManager(
            self.checkpoint,
            workdir,
            max_to_keep=config.keep_checkpoint_max,
            checkpoint_name="ckpt",
        )
        restored = restore_latest_readable(self.checkpoint, self.manager)
        if restored:
            logging.info("Resumed from %s (step %d).", restored, int(self.step_variable.numpy()))
            self._warn_if_data_order_changed()
        elif config.init_checkpoint:
            load_pretrained_weights(self.model, config.init_checkpoint)
        # Only now, with every input read and checked: a run that fails on them writes nothing.
        tf.io.gfile.makedirs(workdir)
        if self.is_chief:
            atomic_write_text(
                os.path.join(workdir, "pretrain_config.json"), config.to_json_string()
            )
        self.step = int(self.step_variable.numpy())
        self._eval_function = None
        self._eval_dataset = None
        self._stop_votes = _stop_votes_function(strategy)

    # -- training --------------------------------------------------------
    def train(self) -> dict[str, float]:
        config = self.config
        replica_step = make_replica_train_step(
            self.model,
            self.optimizer,
            global_batch_size=config.train_batch_size,
            accumulation_steps=config.gradient_accumulation_steps,
            jit_compile=config.jit_compile,
        )
        train_function = make_train_function(self.strategy, replica_step)
        iterator = iter(self.strategy.distribute_datasets_from_function(self._train_dataset))
        writer = self._summary_writer("train")
        metrics: dict[str, float] = {}
        window = _Window(self.step)
        progress = self._progress_bar()
        stopping = False
        with _stop_on_sigterm() as stop:
            while self.step < config.num_train_steps:
                stopping = self._any_worker_stopping(stop)
                if stopping:
                    break
                num_steps = self._steps_until_next_event()
                try:
                    sums = train_function(iterator, tf.constant(num_steps)).numpy()
                except tf.errors.DataLossError as e:
                    raise _name_unreadable_file(config.input_file, e) from e
                self.step += num_steps
                self._stop_if_not_finite(sums)
                window.add(sums)
                if progress is not None:
                    progress.update(self.step, list(metrics_from_sums(sums).items()))
                if self.step % config.log_every_steps == 0 or self._is_event_step():
                    metrics = self._log_train_window(window, writer)
                    window = _Window(self.step)
                if self._is_event_step():
                    metrics.update(self._save())
            if stopping:
                logging.warning(
                    "SIGTERM: saving at step %d and stopping; rerun the same command to resume.",
                    self.step,
                )
                if self.manager.latest_checkpoint != self._checkpoint_path(self.step):
                    self._save(evaluate=False)
                metrics["stopped_by_signal"] = 1.0
        return metrics

    def _any_worker_stopping(self, stop: threading.Event) -> bool:
        """Whether SIGTERM reached this worker or, with several workers, any of them.

        Workers must stop at the same step: saving is collective under
        MultiWorkerMirroredStrategy, so one worker leaving alone would hang the
        others. Every worker calls this once per loop turn, in lock step.
        """
        if self._stop_votes is None:
            return stop.is_set()
        return bool(self._stop_votes(tf.constant(int(stop.is_set()), tf.int32)).numpy() > 0)

    def _progress_bar(self) -> keras.utils.Progbar | None:
        """A live progress bar on an interactive terminal (logs cover the other cases)."""
        if not (self.is_chief and sys.stdout.isatty()):
            return None
        progress = keras.utils.Progbar(
            self.config.num_train_steps, stateful_metrics=_PROGRESS_METRICS, unit_name="step"
        )
        progress.update(self.step)
        return progress

    def _train_dataset(self, context: tf.distribute.InputContext) -> tf.data.Dataset:
        config = self.config
        batches_per_step = context.num_replicas_in_sync // context.num_input_pipelines
        return pretrain_dataset(
            config.input_file,
            global_batch_size=config.train_batch_size,
            max_seq_length=config.max_seq_length,
            max_predictions_per_seq=config.max_predictions_per_seq,
            is_training=True,
            input_context=context,
            seed=config.seed,
            start_batch=self.step * batches_per_step,
            shuffle_buffer_size=config.shuffle_buffer_size,
            dynamic_masking=config.dynamic_masking,
            vocab_size=self.albert_config.vocab_size,
            masking_options=config.masking_options(),
        )

    def _is_event_step(self) -> bool:
        return (
            self.step % self.config.save_checkpoints_steps == 0
            or self.step == self.config.num_train_steps
        )

    def _steps_until_next_event(self) -> int:
        """Steps of the next call: stop exactly at logging and saving steps."""
        config = self.config
        boundaries = [
            config.steps_per_execution,
            config.num_train_steps - self.step,
            config.save_checkpoints_steps - self.step % config.save_checkpoints_steps,
            config.log_every_steps - self.step % config.log_every_steps,
        ]
        return max(1, min(boundaries))

    def _stop_if_not_finite(self, sums: np.ndarray) -> None:
        if np.all(np.isfinite(sums)):
            return
        loss = metrics_from_sums(sums)
        raise FloatingPointError(
            f"The training loss is not finite at step {self.step} (masked_lm_loss="
            f"{loss['masked_lm_loss']}, sentence_order_loss={loss['sentence_order_loss']}). "
            f"Stopped without saving; the last good checkpoint, "
            f"{self.manager.latest_checkpoint or 'none'}, is kept. Lower --learning_rate, "
            "raise --num_warmup_steps or use --precision float32, then rerun to resume."
        )

    def _log_train_window(self, window: _Window, writer: Any) -> dict[str, float]:
        metrics = metrics_from_sums(window.sums)
        metrics["loss"] = metrics["masked_lm_loss"] + metrics["sentence_order_loss"]
        learning_rate = float(keras.ops.convert_to_numpy(self.optimizer.learning_rate))
        steps = self.step - window.first_step
        examples_per_second = steps * self.config.train_batch_size / window.seconds()
        scalars = {
            **metrics,
            "learning_rate": learning_rate,
            "examples_per_second": examples_per_second,
        }
        self._write_scalars(writer, scalars)
        logging.info(
            "step %d/%d: loss %.4f, masked_lm_accuracy %.4f, sentence_order_accuracy %.4f, "
            "learning_rate %.3g, %.1f examples/s",
            self.step,
            self.config.num_train_steps,
            metrics["loss"],
            metrics["masked_lm_accuracy"],
            metrics["sentence_order_accuracy"],
            learning_rate,
            examples_per_second,
        )
        return {f"train/{name}": value for name, value in scalars.items()}

    # -- checkpoints -----------------------------------------------------
    def _checkpoint_path(self, step: int) -> str:
        return os.path.join(self.workdir, f"ckpt-{step}")

    def _save(self, evaluate: bool = True) -> dict[str, float]:
        self.step_variable.assign(self.step)
        with self._write_location(self.workdir) as directory:
            manager = self.manager
            if directory != self.workdir:
                manager = tf.train.CheckpointManager(self.checkpoint, directory, max_to_keep=1)
            with explain_disk_full(directory, self._checkpoint_bytes):
                path = manager.save(checkpoint_number=self.step)
        logging.info("Saved %s.", path)
        if evaluate and self.config.do_eval:
            return self.evaluate_and_keep_best()
        return {}

    def _checkpoint_bytes(self) -> int:
        return variables_bytes([*self.model.weights, *self.optimizer.variables])

    @contextlib.contextmanager
    def _write_location(self, directory: str) -> Iterator[str]:
        """`directory` on the chief; a scratch copy elsewhere, deleted after.

        Every worker of a multi-worker run must take part in a save (it may use
        collectives), but only the chief's files are kept.
        """
        if self.is_chief:
            yield directory
            return
        scratch = os.path.join(self.workdir, f".worker-{self.worker_id}-scratch")
        tf.io.gfile.makedirs(scratch)
        try:
            yield scratch
        finally:
            tf.io.gfile.rmtree(scratch)

    def _warn_if_data_order_changed(self) -> None:
        path = os.path.join(self.workdir, "pretrain_config.json")
        if not tf.io.gfile.exists(path):
            return
        with tf.io.gfile.GFile(path) as f:
            previous = json.load(f)
        for name in (
            "input_file",
            "train_batch_size",
            "seed",
            "strategy",
            "dynamic_masking",
            "masked_lm_prob",
            "ngram",
        ):
            # Settings added later are absent from older files: compare with the default.
            before = previous.get(name, getattr(PretrainConfig, name, None))
            if before != getattr(self.config, name):
                logging.warning(
                    "%s changed since the checkpoint (%r -> %r): the data order after "
                    "resuming is not the one of the interrupted run.",
                    name,
                    before,
                    getattr(self.config, name),
                )

    # -- evaluation ------------------------------------------------------
    def evaluate_and_keep_best(self) -> dict[str, float]:
        metrics = self.evaluate()
        self._write_scalars(self._summary_writer("eval"), metrics)
        logging.info(
            "eval at step %d: %s",
            self.step,
            ", ".join(f"{name} {value:.4f}" for name, value in metrics.items()),
        )
        self._keep_if_best(metrics)
        return {f"eval/{name}": value for name, value in metrics.items()}

    def evaluate(self) -> dict[str, float]:
        """Metrics over at most `max_eval_steps` batches of `eval_file`."""
        if self._eval_function is None:
            replica_eval_step = make_replica_eval_step(self.model, self.config.jit_compile)

            @tf.function
            def eval_function(features):
                per_replica = self.strategy.run(replica_eval_step, args=(features,))
                return self.strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

            self._eval_function = eval_function
            self._eval_dataset = self.strategy.distribute_datasets_from_function(
                self._eval_dataset_fn
            )
        sums = np.zeros(len(SUM_NAMES))
        steps = 0
        iterator = iter(self._eval_dataset)
        try:
            while steps < self.config.max_eval_steps:
                # get_next_as_optional agrees across workers on the end of data.
                features = iterator.get_next_as_optional()
                if not features.has_value():
                    break
                sums += self._eval_function(features.get_value()).numpy()
                steps += 1
        except tf.errors.DataLossError as e:
            raise _name_unreadable_file(self.config.eval_file, e) from e
        if steps == 0:
            raise UserError(
                f"--eval_file {self.config.eval_file!r} holds fewer records than one eval batch "
                f"({self.config.eval_batch_size}); lower --eval_batch_size."
            )
        metrics = metrics_from_sums(sums)
        metrics["loss"] = metrics["masked_lm_loss"] + metrics["sentence_order_loss"]
        return metrics

    def _eval_dataset_fn(self, context: tf.distribute.InputContext) -> tf.data.Dataset:
        config = self.config
        return pretrain_dataset(
            config.eval_file,
            global_batch_size=config.eval_batch_size,
            max_seq_length=config.max_seq_length,
            max_predictions_per_seq=config.max_predictions_per_seq,
            is_training=False,
            input_context=context,
        )

    def _keep_if_best(self, metrics: dict[str, float]) -> None:
        best_dir = os.path.join(self.workdir, "best")
        best_file = os.path.join(best_dir, "metrics.json")
        best = -math.inf
        if tf.io.gfile.exists(best_file):
            with tf.io.gfile.GFile(best_file) as f:
                best = json.load(f)["masked_lm_accuracy"]
        if metrics["masked_lm_accuracy"] <= best:
            return
        with self._write_location(best_dir) as directory:
            manager = tf.train.CheckpointManager(
                tf.train.Checkpoint(model=self.model),
                directory,
                max_to_keep=1,
                checkpoint_name="ckpt",
            )
            path = manager.save(checkpoint_number=self.step)
        if self.is_chief:
            atomic_write_text(best_file, json.dumps({**metrics, "step": self.step}, indent=2))
            logging.info(
                "New best masked_lm_accuracy %.4f: %s.", metrics["masked_lm_accuracy"], path
            )

    # -- outputs ---------------------------------------------------------
    def export_encoder(self) -> None:
        """Saves `encoder.keras` and `albert_config.json` (renamed into place)."""
        with self._write_location(self.workdir) as directory:
            temp_path = os.path.join(directory, ".tmp-encoder.keras")
            with explain_disk_full(temp_path, lambda: variables_bytes(self.model.encoder.weights)):
                self.model.encoder.save(temp_path)
            tf.io.gfile.rename(temp_path, os.path.join(directory, ENCODER_FILE), overwrite=True)
            atomic_write_text(
                os.path.join(directory, ALBERT_CONFIG_FILE), self.albert_config.to_json_string()
            )

    def _summary_writer(self, name: str) -> Any:
        if not self.is_chief:
            return tf.summary.create_noop_writer()
        return tf.summary.create_file_writer(os.path.join(self.workdir, "logs", name))

    def _write_scalars(self, writer: Any, scalars: dict[str, float]) -> None:
        write_scalars(writer, scalars, self.step)


class _Window:
    """Metric sums and wall time since the last log line."""

    def __init__(self, first_step: int):
        self.first_step = first_step
        self.start = time.perf_counter()
        self.sums = np.zeros(len(SUM_NAMES))

    def add(self, sums: np.ndarray) -> None:
        self.sums += sums

    def seconds(self) -> float:
        return max(time.perf_counter() - self.start, 1e-9)


def _create_optimizer(config: PretrainConfig) -> keras.optimizers.Optimizer:
    optimizer = create_optimizer(
        config.optimizer,
        learning_rate=config.learning_rate,
        num_train_steps=config.num_train_steps,
        num_warmup_steps=config.num_warmup_steps,
        weight_decay=config.weight_decay,
        global_clipnorm=config.clip_norm or None,
    )
    if config.precision == "mixed_float16":
        # float16 gradients underflow without it; bfloat16 has float32's range.
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return optimizer


def load_encoder_weights(encoder: AlbertEncoder, path: str) -> str | None:
    """Initializes `encoder` from `path` (`init_checkpoint`); raises `ValueError`.

    `path` is an `encoder.keras` file, or a checkpoint of this trainer (its
    directory or a `ckpt-N` prefix), of which only the encoder is read.

    Returns:
        The checkpoint prefix read, or None for an `encoder.keras` file.
    """
    if path.endswith(".keras"):
        loaded = keras.saving.load_model(path, compile=False)
        if getattr(loaded, "config", None) != encoder.config:
            raise UserError(
                f"--init_checkpoint {path}: its AlbertConfig differs from the model's; use the "
                "albert_config.json it was trained with."
            )
        encoder.set_weights(loaded.get_weights())
        logging.info("Initialized the encoder from %s.", path)
        return None
    prefix = find_checkpoint(path)
    if prefix is None:
        raise UserError(
            f"--init_checkpoint {path}: no checkpoint found (expected an encoder.keras file, a "
            "directory of checkpoints, or a ckpt-N prefix). Convert original TF1 ALBERT "
            "checkpoints with the export tools first."
        )
    read_into(
        tf.train.Checkpoint(model=tf.train.Checkpoint(encoder=encoder)),
        prefix,
        f"--init_checkpoint {prefix}: its encoder does not match the model's ({{reason}}).",
    )
    logging.info("Initialized the encoder from %s.", prefix)
    return prefix


def load_pretrained_weights(model: AlbertPretrainer, path: str) -> None:
    """Initializes `model` from `path` (`init_checkpoint`); raises `ValueError`.

    The encoder always (see `load_encoder_weights`); the masked-LM and
    sentence-order heads too when `path` is a checkpoint of this trainer that
    holds them, as the original's `init_checkpoint` restored every variable it
    found. That is what continued pretraining needs (e.g. a second phase at a
    longer `max_seq_length`); a head not in the checkpoint starts fresh.
    """
    prefix = load_encoder_weights(model.encoder, path)
    if prefix is None:  # An encoder.keras file: no heads in it.
        return
    for name in ("masked_lm_head", "sentence_order_head"):
        head = tf.train.Checkpoint(**{name: getattr(model, name)})
        status = tf.train.Checkpoint(model=head).read(prefix).expect_partial()
        try:
            status.assert_existing_objects_matched()
        except AssertionError:
            logging.info("--init_checkpoint %s holds no %s; it starts fresh.", prefix, name)
            continue
        logging.info("Initialized the %s from %s.", name, prefix)


def _name_unreadable_file(patterns: str, error: tf.errors.DataLossError) -> UserError:
    found = find_unreadable_file(patterns)
    if found is None:
        return UserError(f"Reading {patterns!r} failed: {error.message.strip()}")
    path, reason = found
    return UserError(f"{path}: corrupt or truncated TFRecord file ({reason}); regenerate it.")


def _is_chief(strategy: tf.distribute.Strategy) -> bool:
    # True on the chief (worker 0) of a multi-worker run and on every single-host run.
    return bool(strategy.extended.should_checkpoint)


def _worker_id(strategy: tf.distribute.Strategy) -> int:
    resolver = getattr(strategy, "cluster_resolver", None)
    return int(getattr(resolver, "task_id", 0) or 0) if resolver is not None else 0


def _stop_votes_function(strategy: tf.distribute.Strategy) -> Any:
    """With several workers, a function summing a per-worker 0/1 flag over all of them."""
    if not isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy):
        return None
    jobs = strategy.cluster_resolver.cluster_spec().as_dict()
    if sum(len(jobs.get(job, ())) for job in ("chief", "worker")) < 2:
        return None

    @tf.function
    def votes(flag: tf.Tensor) -> tf.Tensor:
        per_replica = strategy.run(lambda: tf.identity(flag))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    return votes


@contextlib.contextmanager
def _stop_on_sigterm() -> Iterator[threading.Event]:
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
