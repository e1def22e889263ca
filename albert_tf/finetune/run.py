"""`run_classifier`: fine-tune, evaluate, predict and export a sentence (pair) task.

Flax-example style: one function takes a `FinetuneConfig` and an `output_dir` and does the
whole run with plain Keras `compile`/`fit`/`predict`.

Layout of `output_dir`:
    finetune_config.json, task.json   the settings; labels, seq length, casing, columns
    spm.model                         the tokenizer the model was fine-tuned with
    checkpoints/epoch-NN.weights.h5   weights after each epoch
    backup/                           `BackupAndRestore`: rerunning resumes an interrupted fit
    logs/train, logs/eval             TensorBoard scalars: training curves; dev metrics
    model.keras                       the fine-tuned `AlbertClassifier`
    eval_results.json                 metrics of every dev file (whole set, NumPy)
    predictions/<GLUE name>.tsv       `index<TAB>prediction`, the GLUE submission format
    saved_model/                      raw-text SavedModel (`export_saved_model`)

Example:
    >>> config = FinetuneConfig(task="rte", data_dir="glue/RTE", init_checkpoint="bundle/")
    >>> results = run_classifier(config, "/tmp/rte")
    >>> results["dev/accuracy"]  # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.finetune.classifier import AlbertClassifier
from albert_tf.finetune.datasets import make_dataset
from albert_tf.finetune.examples import Examples, infer_labels, read_examples, read_unlabeled
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.metrics import compute_metrics
from albert_tf.finetune.pretrained_encoder import load_pretrained_encoder
from albert_tf.finetune.scalar_logger import ScalarLogger
from albert_tf.finetune.serving import export_classifier
from albert_tf.finetune.tasks import GENERIC_FORMATS, TaskSpec, generic_task, get_task
from albert_tf.finetune.text_features import AlbertTextFeatures
from albert_tf.training.checkpointing import atomic_write_text
from albert_tf.training.optimizers import create_optimizer
from albert_tf.training.precision import resolve_precision
from albert_tf.training.strategy import create_strategy
from albert_tf.training.summaries import write_scalars

MODEL_FILE = "model.keras"
TASK_FILE = "task.json"
SPM_FILE = "spm.model"


def run_classifier(config: FinetuneConfig, output_dir: str) -> dict[str, Any]:
    """Runs what `config` asks (`do_train`, `do_eval`, `do_predict`, `export_saved_model`).

    Returns:
        A flat dict: `train_examples`, `train_steps`, `train_seconds` (when training),
        `<dev name>/<metric>` per dev file (when evaluating), `predictions` (file paths),
        `saved_model` (export path).

    Raises:
        ValueError: bad data (names file and line), a tokenizer whose vocabulary differs from
            the encoder's, a label set that does not match the task, nothing to evaluate.
    """
    keras.utils.set_random_seed(config.seed)
    os.makedirs(output_dir, exist_ok=True)
    strategy = create_strategy(config.strategy, config.tpu or None)
    if config.do_train:
        run = _Run.for_training(config, output_dir, strategy)
    else:
        run = _Run.from_output_dir(config, output_dir, strategy)
    results: dict[str, Any] = {}
    if config.do_train:
        results.update(run.train())
    if config.do_eval:
        results.update(run.evaluate())
    if config.do_predict:
        results["predictions"] = run.predict()
    if config.export_saved_model:
        results["saved_model"] = export_classifier(
            os.path.join(output_dir, "saved_model"),
            run.model,
            run.text_features,
            run.task.labels,
            is_pair=run.task.is_pair,
            overwrite=True,
        )
    return results


def resolve_task(config: FinetuneConfig, labels: tuple[str, ...] | None = None) -> TaskSpec:
    """The task of `config`: a GLUE task or a generic tsv/csv task (labels not yet inferred)."""
    if config.task.lower() in GENERIC_FORMATS:
        return generic_task(
            config.task.lower(),
            text_a_column=config.text_a_column,
            label_column=config.label_column,
            text_b_column=config.text_b_column,
            index_column=config.index_column,
            has_header=config.has_header,
            problem=config.problem,
            labels=labels or config.labels or None,
            train_file=config.train_file or None,
            dev_file=config.dev_file or None,
            test_file=config.test_file or None,
        )
    spec = get_task(config.task, config.labels or None)
    overrides = {}
    if config.train_file:
        overrides["train_file"] = config.train_file
    if config.dev_file:
        overrides["dev_files"] = ((config.dev_file, "dev"),)
    if config.test_file:
        overrides["test_files"] = ((config.test_file, spec.test_files[0][1]),)
    return spec.replace(**overrides)


def data_path(config: FinetuneConfig, file_name: str) -> str:
    """`file_name` under `data_dir` (a path with a directory part is used as is)."""
    if os.path.dirname(file_name) or not config.data_dir:
        return file_name
    return os.path.join(config.data_dir, file_name)


class _Run:
    """The task, featurizer and model of one run, with its train/evaluate/predict steps."""

    def __init__(
        self,
        config: FinetuneConfig,
        output_dir: str,
        strategy: tf.distribute.Strategy,
        task: TaskSpec,
        text_features: AlbertTextFeatures,
        model: AlbertClassifier,
    ):
        self.config = config
        self.output_dir = output_dir
        self.strategy = strategy
        self.task = task
        self.text_features = text_features
        self.model = model

    # -- construction ----------------------------------------------------
    @classmethod
    def for_training(
        cls, config: FinetuneConfig, output_dir: str, strategy: tf.distribute.Strategy
    ) -> _Run:
        task = resolve_task(config)
        if task.problem == "classification" and task.labels is None:
            task = task.with_labels(infer_labels(data_path(config, task.train_file), task))
            logging.info("Labels inferred from %s: %s", task.train_file, list(task.labels))
        precision = resolve_precision(config.precision, strategy)
        with strategy.scope():
            pretrained = load_pretrained_encoder(
                config.init_checkpoint or None,
                config.albert_config_file or None,
                dtype=precision,
            )
            spm_model_file = config.spm_model_file or pretrained.spm_model_file
            if not spm_model_file:
                raise ValueError(
                    "No tokenizer: pass --spm_model_file (the SentencePiece model the encoder "
                    "was pretrained with), or an encoder bundle that carries one."
                )
            do_lower_case = (
                pretrained.do_lower_case
                if pretrained.do_lower_case is not None and not config.spm_model_file
                else config.do_lower_case
            )
            text_features = AlbertTextFeatures(
                spm_model_file, config.max_seq_length, do_lower_case=do_lower_case
            )
            check_compatible(pretrained.encoder.config, text_features, config, spm_model_file)
            model = AlbertClassifier(
                pretrained.encoder,
                task.num_outputs,
                dropout_rate=config.dropout_rate,
                dtype=precision,
            )
        _write_run_files(config, output_dir, task, spm_model_file, do_lower_case)
        return cls(config, output_dir, strategy, task, text_features, model)

    @classmethod
    def from_output_dir(
        cls, config: FinetuneConfig, output_dir: str, strategy: tf.distribute.Strategy
    ) -> _Run:
        model_path = os.path.join(output_dir, MODEL_FILE)
        if not os.path.isfile(model_path):
            raise ValueError(
                f"{output_dir}: no fine-tuned {MODEL_FILE}; run with --do_train first (or point "
                "--output_dir at a finished run)."
            )
        with open(os.path.join(output_dir, TASK_FILE), encoding="utf-8") as handle:
            saved = json.load(handle)
        task = resolve_task(config, tuple(saved["labels"]) if saved["labels"] else None)
        if task.labels is not None and tuple(saved["labels"]) != task.labels:
            raise ValueError(
                f"{output_dir}: the model was fine-tuned with labels {saved['labels']}, not "
                f"{list(task.labels)}; check --task/--labels."
            )
        with strategy.scope():
            model = keras.saving.load_model(model_path, compile=False)
            text_features = AlbertTextFeatures(
                os.path.join(output_dir, SPM_FILE),
                saved["max_seq_length"],
                do_lower_case=saved["do_lower_case"],
            )
        return cls(config, output_dir, strategy, task, text_features, model)

    # -- steps -----------------------------------------------------------
    def train(self) -> dict[str, Any]:
        config = self.config
        train_examples = read_examples(data_path(config, self.task.train_file), self.task)
        if config.max_train_examples:
            train_examples = train_examples.take(config.max_train_examples)
        steps_per_epoch, epochs = plan_steps(
            len(train_examples), config.train_batch_size, config.num_train_epochs
        )
        total_steps = steps_per_epoch * epochs
        warmup_steps = int(total_steps * config.warmup_proportion)
        with self.strategy.scope():
            self.model.compile(
                optimizer=create_optimizer(
                    config.optimizer,
                    learning_rate=config.learning_rate,
                    num_train_steps=total_steps,
                    num_warmup_steps=warmup_steps,
                    weight_decay=config.weight_decay,
                    global_clipnorm=config.clip_norm or None,
                    bias_correction=True,
                ),
                loss=self._loss(),
                metrics=self._keras_metrics(),
                jit_compile=config.jit_compile,
                steps_per_execution=config.steps_per_execution,
            )
        train_dataset = make_dataset(
            train_examples,
            self.text_features,
            config.train_batch_size,
            training=True,
            seed=config.seed,
        )
        logging.info(
            "Fine-tuning on %d examples: %d steps (%d epochs of %d), warmup %d.",
            len(train_examples),
            total_steps,
            epochs,
            steps_per_epoch,
            warmup_steps,
        )
        start = tf.timestamp()
        history = self.model.fit(
            train_dataset,
            epochs=epochs,
            steps_per_epoch=steps_per_epoch,
            callbacks=self._callbacks(),
            verbose=2,
        )
        seconds = float(tf.timestamp() - start)
        self._save_model()
        results: dict[str, Any] = {
            "train_examples": len(train_examples),
            "train_steps": epochs * steps_per_epoch,
            "train_seconds": seconds,
        }
        for name, values in history.history.items():
            results[f"train/{name}"] = float(values[-1])
        return results

    def evaluate(self) -> dict[str, float]:
        results: dict[str, float] = {}
        optimizer = getattr(self.model, "optimizer", None)
        step = int(optimizer.iterations) if optimizer is not None else 0
        writer = tf.summary.create_file_writer(os.path.join(self.output_dir, "logs", "eval"))
        for file_name, dev_name in self.task.dev_files:
            examples = read_examples(data_path(self.config, file_name), self.task)
            predictions = self._predict(examples)
            metrics = compute_metrics(self.task.metrics, examples.labels, predictions)
            logging.info("%s (%d examples): %s", dev_name, len(examples), metrics)
            write_scalars(
                writer, {f"{dev_name}/{name}": value for name, value in metrics.items()}, step
            )
            results.update({f"{dev_name}/{name}": value for name, value in metrics.items()})
            results[f"{dev_name}/examples"] = len(examples)
        writer.close()
        atomic_write_text(
            os.path.join(self.output_dir, "eval_results.json"), json.dumps(results, indent=2)
        )
        return results

    def predict(self) -> list[str]:
        """Writes `predictions/<name>.tsv` per test file; returns their paths."""
        paths = []
        for file_name, submission_name in self.task.test_files:
            examples = read_unlabeled(data_path(self.config, file_name), self.task)
            predictions = self._predict(examples)
            path = os.path.join(self.output_dir, "predictions", f"{submission_name}.tsv")
            write_predictions(path, examples.ids, predictions, self.task.labels)
            logging.info("Wrote %d predictions to %s.", len(examples), path)
            paths.append(path)
        return paths

    # -- helpers ---------------------------------------------------------
    def _predict(self, examples: Examples) -> np.ndarray:
        """Class ids (classification) or scores (regression) for every example."""
        dataset = make_dataset(
            examples, self.text_features, self.config.eval_batch_size, with_labels=False
        )
        logits = self.model.predict(dataset, verbose=0)
        if self.task.problem == "regression":
            return logits[:, 0]
        return np.argmax(logits, axis=-1)

    def _loss(self) -> keras.losses.Loss:
        if self.task.problem == "regression":
            return keras.losses.MeanSquaredError()
        return keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def _keras_metrics(self) -> list[keras.metrics.Metric]:
        if self.task.problem == "regression":
            return [keras.metrics.MeanAbsoluteError(name="mae")]
        return [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]

    def _callbacks(self) -> list[keras.callbacks.Callback]:
        return [
            keras.callbacks.BackupAndRestore(os.path.join(self.output_dir, "backup")),
            keras.callbacks.ModelCheckpoint(
                os.path.join(self.output_dir, "checkpoints", "epoch-{epoch:02d}.weights.h5"),
                save_weights_only=True,
            ),
            ScalarLogger(os.path.join(self.output_dir, "logs")),
        ]

    def _save_model(self) -> None:
        temp_path = os.path.join(self.output_dir, f".tmp-{MODEL_FILE}")
        self.model.save(temp_path)
        os.replace(temp_path, os.path.join(self.output_dir, MODEL_FILE))


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


def check_compatible(
    albert_config, text_features: AlbertTextFeatures, config: FinetuneConfig, spm_model_file: str
) -> None:
    """The tokenizer's vocabulary and the sequence length must fit the encoder."""
    if text_features.vocab_size != albert_config.vocab_size:
        raise ValueError(
            f"{spm_model_file}: the SentencePiece model has {text_features.vocab_size} pieces but "
            f"the encoder ({config.init_checkpoint or config.albert_config_file}) has vocab_size "
            f"{albert_config.vocab_size}; use the tokenizer the encoder was pretrained with."
        )
    if config.max_seq_length > albert_config.max_position_embeddings:
        raise ValueError(
            f"max_seq_length {config.max_seq_length} exceeds the encoder's "
            f"max_position_embeddings {albert_config.max_position_embeddings}."
        )


def write_predictions(
    path: str, ids: list[str], predictions: np.ndarray, labels: tuple[str, ...] | None
) -> None:
    """GLUE submission format: a header `index<TAB>prediction`, then one line per example.

    Classes are written as their label names (GLUE's own: 0/1, entailment, ...), scores with
    3 decimals. Written to a temporary file and renamed.
    """
    lines = ["index\tprediction"]
    for example_id, prediction in zip(ids, predictions, strict=True):
        value = labels[int(prediction)] if labels is not None else f"{float(prediction):.3f}"
        lines.append(f"{example_id}\t{value}")
    atomic_write_text(path, "\n".join(lines) + "\n")


def _write_run_files(
    config: FinetuneConfig,
    output_dir: str,
    task: TaskSpec,
    spm_model_file: str,
    do_lower_case: bool,
) -> None:
    atomic_write_text(os.path.join(output_dir, "finetune_config.json"), config.to_json_string())
    task_info = {
        "task": task.name,
        "problem": task.problem,
        "labels": list(task.labels) if task.labels else None,
        "metrics": list(task.metrics),
        "max_seq_length": config.max_seq_length,
        "do_lower_case": do_lower_case,
        "is_pair": task.is_pair,
    }
    atomic_write_text(os.path.join(output_dir, TASK_FILE), json.dumps(task_info, indent=2))
    target = os.path.join(output_dir, SPM_FILE)
    if os.path.abspath(spm_model_file) != os.path.abspath(target):
        with tempfile.NamedTemporaryFile(dir=output_dir, prefix=".tmp-", delete=False) as handle:
            temp_path = handle.name
        shutil.copyfile(spm_model_file, temp_path)
        os.replace(temp_path, target)
