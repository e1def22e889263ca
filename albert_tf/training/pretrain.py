"""`train_and_evaluate`: ALBERT pretraining (MLM + SOP) with fault-tolerant checkpoints.

Flax-example style: one function takes a `PretrainConfig` and a `workdir` and
does the whole run; rerunning the same command resumes it.

Layout of `workdir`:
    ckpt-<step>.{index,data-*}, checkpoint   last `keep_checkpoint_max` checkpoints
    best/ckpt-<step>.*, best/metrics.json    best by eval masked_lm_accuracy (do_eval)
    logs/train, logs/eval                    TensorBoard scalars (and --profile_steps' trace)
    logs/                                    the run's hparams (TensorBoard's HParams dashboard)
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

The run is read one part at a time: this module builds the model, optimizer and
checkpoints and runs the loop (`_Run`); `pretrain_loop` has the loop's pieces (input,
steps between events, logging), `stop_signal` the SIGTERM handling and the workers'
vote, `pretrain_evaluation` evaluation and the best checkpoint, `worker_files` where
each worker writes, `init_checkpoint` starting from an earlier run.

Illustration (not run):
    config = PretrainConfig(input_file="out/train-*.tfrecord",
                            albert_config_file="albert_config.json",
                            train_batch_size=64, num_train_steps=1000,
                            max_seq_length=128)
    metrics = train_and_evaluate(config, "/tmp/albert_pretrain", Runtime.for_machine())
    metrics["train/masked_lm_accuracy"]
"""

from __future__ import annotations

import json
import logging
import os

import keras
import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text
from albert_tf.config import AlbertConfig
from albert_tf.disk_space import explain_disk_full, variables_bytes
from albert_tf.errors import UserError
from albert_tf.file_names import ALBERT_CONFIG_FILE, ENCODER_FILE
from albert_tf.inputs.pretrain_input import check_records, pretrain_dataset
from albert_tf.models.chains import use_chains
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.output_lock import output_lock
from albert_tf.runtime.runtime import Runtime
from albert_tf.training.checkpointing import restore_latest_readable
from albert_tf.training.hparams import hparam_values, write_hparams
from albert_tf.training.init_checkpoint import load_encoder_weights, load_pretrained_weights
from albert_tf.training.new_rows import NewRowsOnly
from albert_tf.training.optimizer_all_reduce import disable_optimizer_all_reduce
from albert_tf.training.optimizers import create_optimizer
from albert_tf.training.precision import resolve_precision
from albert_tf.training.pretrain_config import PretrainConfig
from albert_tf.training.pretrain_evaluation import PretrainEvaluator, distributed_eval_function
from albert_tf.training.pretrain_loop import (
    StepProfiler,
    TrainWindow,
    check_finite,
    is_event_step,
    log_train_window,
    progress_bar,
    steps_until_next_event,
)
from albert_tf.training.pretrain_step import (
    make_replica_train_step,
    make_train_function,
    metrics_from_sums,
)
from albert_tf.training.record_errors import unreadable_records_error
from albert_tf.training.stop_signal import StopVote, stop_on_sigterm
from albert_tf.training.strategy import create_strategy
from albert_tf.training.worker_files import WorkerFiles

__all__ = ["load_encoder_weights", "load_pretrained_weights", "train_and_evaluate"]

# The metrics' prefix (and logs/ directory) of the general-domain records' evaluation.
GENERAL_EVAL = "eval_general"
# The loop's metric window; tests patch its `add` to act between steps.
_Window = TrainWindow
# The metrics the HParams dashboard shows, as logs/train and logs/eval hold them.
HPARAMS_METRICS = (
    "loss",
    "masked_lm_accuracy",
    "masked_lm_loss",
    "sentence_order_accuracy",
    "sentence_order_loss",
)


def train_and_evaluate(config: PretrainConfig, workdir: str, runtime: Runtime) -> dict[str, float]:
    """Pretrains (`do_train`) and/or evaluates (`do_eval`); returns the final metrics.

    `runtime`: the speed-only forms the model trains with (the command passes its flags'
    resolved `RuntimeOptions`; `Runtime.for_machine()` is what it runs on this machine by
    default).

    Returns a flat dict: `step`, `train/<metric>` (the last logging window),
    `eval/<metric>` (the last evaluation) for the metrics `masked_lm_accuracy`,
    `masked_lm_loss`, `sentence_order_accuracy`, `sentence_order_loss`, `loss`,
    and `stopped_by_signal` (1.0 when SIGTERM ended the run early).
    """
    # First: MultiWorkerMirroredStrategy must configure collectives before any
    # TensorFlow op runs (reading records below initializes the runtime).
    strategy = create_strategy(config.strategy, config.tpu)
    albert_config = AlbertConfig.from_file_or_preset(config.albert_config_file)
    _check_config(config, albert_config)
    # Same seed, same initial weights: with the deterministic data order, a run
    # is reproducible (on deterministic kernels) and resumable bit for bit.
    keras.utils.set_random_seed(config.seed)
    # One job per output directory (the chief's lock; other workers write scratch copies).
    with output_lock(workdir if strategy.extended.should_checkpoint else None, directory=True):
        return _train_and_evaluate(config, albert_config, strategy, workdir, runtime)


def _train_and_evaluate(
    config: PretrainConfig,
    albert_config: AlbertConfig,
    strategy: tf.distribute.Strategy,
    workdir: str,
    runtime: Runtime,
) -> dict[str, float]:
    run = _Run(config, albert_config, strategy, workdir, runtime)
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
            json.dumps(
                {k: v for k, v in metrics.items() if k.startswith(("eval/", GENERAL_EVAL))},
                indent=2,
            ),
        )
    return metrics


def _check_config(config: PretrainConfig, albert_config: AlbertConfig) -> None:
    if config.max_seq_length > albert_config.max_position_embeddings:
        raise UserError(
            f"max_seq_length {config.max_seq_length} exceeds the model's "
            f"max_position_embeddings {albert_config.max_position_embeddings} "
            f"({config.albert_config_file})."
        )
    if config.new_rows_from >= albert_config.vocab_size:
        raise UserError(
            f"new_rows_from {config.new_rows_from} is not an id of the model's vocabulary "
            f"(vocab_size {albert_config.vocab_size})",
            where="--new_rows_from",
            fix="pass the size the vocabulary had before it grew",
        )
    for name, patterns in (
        ("input_file", config.input_file),
        ("eval_file", config.eval_file),
        ("general_input_file", config.general_input_file),
        ("general_eval_file", config.general_eval_file),
    ):
        used = config.do_train if name.endswith("input_file") else config.do_eval
        if used and patterns:
            try:
                check_records(
                    patterns,
                    config.max_seq_length,
                    config.max_predictions_per_seq,
                    albert_config.vocab_size,
                    require_token_boundary=config.dynamic_masking and name.endswith("input_file"),
                )
            except ValueError as e:
                raise UserError(f"--{name}: {e}") from e


class _Run:
    """One pretraining run: model, optimizer, checkpoints, and the training loop."""

    def __init__(
        self,
        config: PretrainConfig,
        albert_config: AlbertConfig,
        strategy: tf.distribute.Strategy,
        workdir: str,
        runtime: Runtime,
    ):
        self.config = config
        self.runtime = runtime
        self.albert_config = albert_config
        self.strategy = strategy
        self.workdir = workdir
        self.files = WorkerFiles(strategy, workdir)
        self.is_chief = self.files.is_chief

        with strategy.scope():
            # The dtype policy goes to the layers (not the global policy), so
            # runs with different precisions can share a process.
            self.precision = resolve_precision(config.precision, strategy, config.jit_compile)
            encoder = AlbertEncoder(albert_config, dtype=self.precision)
            self.model = use_chains(AlbertPretrainer(encoder), runtime.chains)
            self.optimizer = _create_optimizer(config, self.precision)
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
            _warn_if_data_order_changed(workdir, config)
        elif config.init_checkpoint:
            load_pretrained_weights(self.model, config.init_checkpoint)
        # Only now, with every input read and checked: a run that fails on them writes nothing.
        tf.io.gfile.makedirs(workdir)
        if self.is_chief:
            atomic_write_text(
                os.path.join(workdir, "pretrain_config.json"), config.to_json_string()
            )
            self.runtime.record(workdir)
            if not restored:  # A resumed run wrote them when it started.
                self._write_hparams()
        self.step = int(self.step_variable.numpy())
        # One eval step (one trace and compile) for the domain's and the general records.
        shared = distributed_eval_function(self.model, strategy, config.jit_compile)
        self.evaluators = [
            PretrainEvaluator(config, self.model, strategy, self.files, eval_function=shared)
        ]
        if config.general_eval_file:  # Forgetting, beside the domain's figures.
            self.evaluators.append(
                PretrainEvaluator(
                    config.replace(eval_file=config.general_eval_file),
                    self.model,
                    strategy,
                    self.files,
                    name=GENERAL_EVAL,
                    keep_best=False,
                    eval_function=shared,
                )
            )

    def _write_hparams(self) -> None:
        """The run's settings and model shape, with its metrics, for the HParams dashboard."""
        groups = ("train", "eval") if self.config.do_eval else ("train",)
        groups += (GENERAL_EVAL,) if self.config.general_eval_file else ()
        write_hparams(
            os.path.join(self.workdir, "logs"),
            {
                **hparam_values(self.config),
                **hparam_values(self.albert_config.to_dict(), prefix="model."),
            },
            [(group, name) for group in groups for name in HPARAMS_METRICS],
        )

    def train(self) -> dict[str, float]:
        """Trains up to `num_train_steps`, saving (and evaluating) at the event steps."""
        config = self.config
        replica_step = make_replica_train_step(
            self.model,
            self.optimizer,
            global_batch_size=config.train_batch_size,
            accumulation_steps=config.gradient_accumulation_steps,
            jit_compile=config.jit_compile,
            sentence_order_loss_weight=config.sentence_order_loss_weight,
            new_rows_only=(
                NewRowsOnly.for_pretrainer(
                    self.model, config.new_rows_from, config.new_rows_only_steps
                )
                if config.new_rows_only_steps
                else None
            ),
        )
        train_function = make_train_function(self.strategy, replica_step)
        iterator = iter(self.strategy.distribute_datasets_from_function(self._train_dataset))
        writer = self.files.summary_writer("train")
        vote = StopVote(self.strategy)
        metrics: dict[str, float] = {}
        window = _Window(self.step)
        progress = progress_bar(config, self.step, self.is_chief)
        profiler = StepProfiler(
            config.profile_range() if self.is_chief else None,
            os.path.join(self.workdir, "logs", "train"),
        )
        stopping = False
        with stop_on_sigterm() as stop, profiler:
            while self.step < config.num_train_steps:
                stopping = vote.any_worker_stopping(stop)
                if stopping:
                    break
                num_steps = steps_until_next_event(config, self.step)
                try:
                    with profiler.steps(self.step, num_steps):
                        sums = train_function(iterator, tf.constant(num_steps)).numpy()
                except tf.errors.DataLossError as e:
                    raise unreadable_records_error(config.input_file, e) from e
                self.step += num_steps
                check_finite(sums, self.step, self.manager.latest_checkpoint)
                window.add(sums)
                if progress is not None:
                    progress.update(
                        self.step,
                        list(metrics_from_sums(sums, config.sentence_order_loss_weight).items()),
                    )
                if self.step % config.log_every_steps == 0 or is_event_step(config, self.step):
                    metrics = log_train_window(window, self.step, config, self.optimizer, writer)
                    window = _Window(self.step)
                if is_event_step(config, self.step):
                    metrics.update(self._save())
            if stopping:
                logging.warning(
                    "SIGTERM: saving at step %d and stopping; rerun the same command to resume.",
                    self.step,
                )
                if self.manager.latest_checkpoint != os.path.join(
                    self.workdir, f"ckpt-{self.step}"
                ):
                    self._save(evaluate=False)
                metrics["stopped_by_signal"] = 1.0
        return metrics

    def _train_dataset(self, context: tf.distribute.InputContext) -> tf.data.Dataset:
        """Each pipeline's training input, resuming after the steps already taken."""
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
            general_file_patterns=config.general_input_file or None,
            general_ratio=config.general_mix_ratio,
        )

    def evaluate_and_keep_best(self) -> dict[str, float]:
        metrics = {}
        for evaluator in self.evaluators:
            metrics.update(evaluator.evaluate_and_keep_best(self.step))
        if len(self.evaluators) > 1:
            logging.info(
                "step %d, domain | general: %s",
                self.step,
                ", ".join(
                    f"{name} {metrics[f'eval/{name}']:.4f} | "
                    f"{metrics[f'{GENERAL_EVAL}/{name}']:.4f}"
                    for name in ("masked_lm_accuracy", "masked_lm_loss")
                ),
            )
        return metrics

    def _save(self, evaluate: bool = True) -> dict[str, float]:
        self.step_variable.assign(self.step)
        with self.files.write_location(self.workdir) as directory:
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

    def export_encoder(self) -> None:
        """Saves `encoder.keras` and `albert_config.json` (renamed into place)."""
        with self.files.write_location(self.workdir) as directory:
            temp_path = os.path.join(directory, ".tmp-encoder.keras")
            with explain_disk_full(temp_path, lambda: variables_bytes(self.model.encoder.weights)):
                self.model.encoder.save(temp_path)
            tf.io.gfile.rename(temp_path, os.path.join(directory, ENCODER_FILE), overwrite=True)
            atomic_write_text(
                os.path.join(directory, ALBERT_CONFIG_FILE), self.albert_config.to_json_string()
            )


def _warn_if_data_order_changed(workdir: str, config: PretrainConfig) -> None:
    path = os.path.join(workdir, "pretrain_config.json")
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
        "general_input_file",
        "general_mix_ratio",
    ):
        # Settings added later are absent from older files: compare with the default.
        before = previous.get(name, getattr(PretrainConfig, name, None))
        if before != getattr(config, name):
            logging.warning(
                "%s changed since the checkpoint (%r -> %r): the data order after "
                "resuming is not the one of the interrupted run.",
                name,
                before,
                getattr(config, name),
            )


def _create_optimizer(config: PretrainConfig, precision: str) -> keras.optimizers.Optimizer:
    """The configured optimizer; `precision` is the resolved policy (never `"auto"`)."""
    optimizer = create_optimizer(
        config.optimizer,
        learning_rate=config.learning_rate,
        num_train_steps=config.num_train_steps,
        num_warmup_steps=config.num_warmup_steps,
        weight_decay=config.weight_decay,
        global_clipnorm=config.clip_norm or None,
    )
    if precision == "mixed_float16":
        # float16 gradients underflow without it; bfloat16 has float32's range.
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return optimizer
