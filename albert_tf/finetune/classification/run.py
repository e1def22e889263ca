"""`run_classifier`: fine-tune, evaluate, predict and export a sentence (pair) task.

Flax-example style: one function takes a `ClassificationConfig` and an `output_dir` and does the
whole run with plain Keras `compile`/`fit`/`predict`, through the steps every task family
shares (`albert_tf.finetune.training`).

Layout of `output_dir` (besides the shared files of `albert_tf.finetune.training`):
    eval_results.json                 metrics of every dev file (whole set, NumPy)
    predictions/<GLUE name>.tsv       `index<TAB>prediction`, the GLUE submission format
    saved_model/                      raw-text SavedModel (`export_classifier`)

Illustration (not run):
    config = ClassificationConfig(task="rte", data_dir="glue/RTE",
                                  init_checkpoint="bundle/")
    results = run_classifier(config, "/tmp/rte")
    results["dev/accuracy"]
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.finetune.classification.classification_config import ClassificationConfig
from albert_tf.finetune.classification.datasets import make_dataset
from albert_tf.finetune.classification.examples import (
    Examples,
    infer_labels,
    read_examples,
    read_unlabeled,
)
from albert_tf.finetune.classification.metrics import compute_metrics
from albert_tf.finetune.classification.serving import export_classifier
from albert_tf.finetune.classification.tasks import (
    GENERIC_FORMATS,
    TaskSpec,
    generic_task,
    get_task,
)
from albert_tf.finetune.training import (
    load_finetuned_model,
    load_finetuning_encoder,
    optimizer_step,
    read_task_file,
    run_spm_file,
    start,
    train,
    write_run_files,
)
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.output_lock import output_lock
from albert_tf.runtime.prediction import predict_outputs
from albert_tf.tokenization.text_features import AlbertTextFeatures
from albert_tf.training.summaries import write_scalars


def run_classifier(config: ClassificationConfig, output_dir: str) -> dict[str, Any]:
    """Runs what `config` asks (`do_train`, `do_eval`, `do_predict`, `export_saved_model`).

    Returns:
        A flat dict: `train_examples`, `train_steps`, `train_seconds` (when training),
        `<dev name>/<metric>` per dev file (when evaluating), `predictions` (file paths),
        `saved_model` (export path).

    Raises:
        UserError: bad data (names file and line), a tokenizer whose vocabulary differs from
            the encoder's, a label set that does not match the task, nothing to evaluate.
    """
    with output_lock(output_dir, directory=True):  # One job per output directory.
        return _run_classifier(config, output_dir)


def _run_classifier(config: ClassificationConfig, output_dir: str) -> dict[str, Any]:
    strategy, precision = start(config)
    if config.do_train:
        run = _Run.for_training(config, output_dir, strategy, precision)
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


def resolve_task(config: ClassificationConfig, labels: tuple[str, ...] | None = None) -> TaskSpec:
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


def data_path(config: ClassificationConfig, file_name: str) -> str:
    """`file_name` under `data_dir` (a path with a directory part is used as is)."""
    if os.path.dirname(file_name) or not config.data_dir:
        return file_name
    return os.path.join(config.data_dir, file_name)


class _Run:
    """The task, featurizer and model of one run, with its train/evaluate/predict steps."""

    def __init__(
        self,
        config: ClassificationConfig,
        output_dir: str,
        strategy: tf.distribute.Strategy,
        task: TaskSpec,
        text_features: AlbertTextFeatures,
        model: AlbertClassifier,
        train_examples: Examples | None = None,
    ):
        self.config = config
        self.output_dir = output_dir
        self.strategy = strategy
        self.task = task
        self.text_features = text_features
        self.model = model
        self.train_examples = train_examples

    # -- construction ----------------------------------------------------
    @classmethod
    def for_training(
        cls,
        config: ClassificationConfig,
        output_dir: str,
        strategy: tf.distribute.Strategy,
        precision: str,
    ) -> _Run:
        """Reads and checks every input, then writes the run files into `output_dir`."""
        task = resolve_task(config)
        train_file = data_path(config, task.train_file)
        if task.problem == "classification" and task.labels is None:
            task = task.with_labels(infer_labels(train_file, task))
            logging.info("Labels inferred from %s: %s", task.train_file, list(task.labels))
        train_examples = read_examples(train_file, task)
        if config.do_eval:  # Checked now: a bad dev file must not surface after training.
            for file_name, _ in task.dev_files:
                read_examples(data_path(config, file_name), task)
        if config.max_train_examples:
            train_examples = train_examples.take(config.max_train_examples)
        with strategy.scope():
            pretrained = load_finetuning_encoder(config, precision)
            text_features = AlbertTextFeatures(
                pretrained.spm_model_file,
                config.max_seq_length,
                do_lower_case=pretrained.do_lower_case,
            )
            model = AlbertClassifier(
                pretrained.encoder,
                task.num_outputs,
                dropout_rate=config.dropout_rate,
                dtype=precision,
            )
        task_info = {
            "task": task.name,
            "problem": task.problem,
            "labels": list(task.labels) if task.labels else None,
            "metrics": list(task.metrics),
            "max_seq_length": config.max_seq_length,
            "do_lower_case": pretrained.do_lower_case,
            "is_pair": task.is_pair,
        }
        write_run_files(output_dir, config, task_info, pretrained.spm_model_file)
        return cls(config, output_dir, strategy, task, text_features, model, train_examples)

    @classmethod
    def from_output_dir(
        cls, config: ClassificationConfig, output_dir: str, strategy: tf.distribute.Strategy
    ) -> _Run:
        model = load_finetuned_model(output_dir, strategy)
        saved = read_task_file(output_dir)
        task = resolve_task(config, tuple(saved["labels"]) if saved["labels"] else None)
        if task.labels is not None and tuple(saved["labels"]) != task.labels:
            raise UserError(
                f"the model was fine-tuned with labels {saved['labels']}, not {list(task.labels)}",
                where=output_dir,
                fix="check --task/--labels",
            )
        with strategy.scope():
            text_features = AlbertTextFeatures(
                run_spm_file(output_dir),
                saved["max_seq_length"],
                do_lower_case=saved["do_lower_case"],
            )
        return cls(config, output_dir, strategy, task, text_features, model)

    # -- steps -----------------------------------------------------------
    def train(self) -> dict[str, Any]:
        config = self.config
        dataset = make_dataset(
            self.train_examples,
            self.text_features,
            config.train_batch_size,
            training=True,
            seed=config.seed,
            bucket_width=config.bucket_width,
        )
        return train(
            self.model,
            dataset,
            len(self.train_examples),
            config,
            self.output_dir,
            self.strategy,
            loss=self._loss(),
            metrics=self._keras_metrics(),
        )

    def evaluate(self) -> dict[str, float]:
        results: dict[str, float] = {}
        step = optimizer_step(self.model)
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
        logits = predict_outputs(self.model, dataset, self.strategy)
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
