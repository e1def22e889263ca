"""The classification family: GLUE tasks and any TSV/CSV file, sentence or pair, on the driver.

What is its own (`albert_tf.finetune.driver` does the rest):

    inputs       the task's train/dev/test files (`tasks`, `examples`); a generic task's labels
                 are read from its training file
    model        `AlbertClassifier` (softmax cross-entropy, or MSE for a regression)
    evaluation   every dev file's metrics (`<dev name>/<metric>`, whole set, NumPy)
    predictions  predictions/<GLUE name>.tsv: `index<TAB>prediction`, the GLUE submission format
    serving      `classify_text(text_a)` or `classify_text_pair(text_a, text_b)` (`serving`)

Illustration (not run):
    config = ClassificationConfig(task="rte", data_dir="glue/RTE", init_checkpoint="bundle/")
    run_classifier(config, "/tmp/rte", Runtime.for_machine())["dev/accuracy"]
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import keras
import numpy as np

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.finetune.classification.classification_config import ClassificationConfig
from albert_tf.finetune.classification.datasets import featurized_examples
from albert_tf.finetune.classification.examples import (
    Examples,
    infer_labels,
    read_examples,
    read_unlabeled,
)
from albert_tf.finetune.classification.metrics import compute_metrics
from albert_tf.finetune.classification.serving import built_text_features, classifier_endpoints
from albert_tf.finetune.classification.task_specs import (
    GENERIC_FORMATS,
    TaskSpec,
    generic_task,
    get_task,
)
from albert_tf.finetune.datasets import evaluation_batches
from albert_tf.finetune.distillation.losses import logits_distillation, score_distillation
from albert_tf.finetune.driver import run_finetuning
from albert_tf.finetune.task_family import (
    FinetuneRun,
    FinetuneTask,
    TaskInfo,
    TaskInputs,
    TrainingData,
)
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.runtime.runtime import Runtime
from albert_tf.tokenization.text_features import AlbertTextFeatures


@dataclasses.dataclass(frozen=True)
class ClassificationInfo(TaskInfo):
    """`task.json`: the task's problem, class names (None for a regression), metrics, pairs."""

    problem: str
    labels: tuple[str, ...] | None
    metrics: tuple[str, ...]
    is_pair: bool

    @property
    def num_outputs(self) -> int:
        return 1 if self.labels is None else len(self.labels)


@dataclasses.dataclass(frozen=True)
class ClassificationInputs(TaskInputs):
    """The resolved task (a GLUE task, or a generic one whose labels come from the training
    file or the finished run) and its examples: `dev` and `test` per file, by name."""

    spec: TaskSpec
    train: Examples | None = None
    dev: list[tuple[str, Examples]] | None = None
    test: list[tuple[str, Examples]] | None = None


class ClassificationTask(FinetuneTask, family="classification", config_class=ClassificationConfig):
    """Sentence (pair) classification and regression (see the module docstring)."""

    info_class = ClassificationInfo

    def read_inputs(self, saved: ClassificationInfo | None) -> ClassificationInputs:
        config = self.config
        spec = resolve_task(config, saved.labels if saved else None)
        if config.do_train and spec.problem == "classification" and not spec.labels:
            labels = infer_labels(config.data_path(spec.train_file), spec)
            spec = spec.with_labels(labels)
            logging.info("Labels inferred from %s: %s", spec.train_file, list(labels))
        train = dev = test = None
        if config.do_train:
            train = read_examples(config.data_path(spec.train_file), spec)
            train = train.take(config.max_train_examples or len(train))
        if config.do_eval:
            dev = [
                (name, read_examples(config.data_path(file_name), spec))
                for file_name, name in spec.dev_files
            ]
        if config.do_predict:
            test = [
                (name, read_unlabeled(config.data_path(file_name), spec))
                for file_name, name in spec.test_files
            ]
        return ClassificationInputs(spec, train, dev, test)

    def info_values(self, inputs: ClassificationInputs) -> dict[str, Any]:
        fields = ("problem", "labels", "metrics", "is_pair")
        spec = inputs.spec
        return {"task": spec.name, **{name: getattr(spec, name) for name in fields}}

    def check(self, inputs: ClassificationInputs, info: ClassificationInfo) -> None:
        spec = inputs.spec
        if spec.labels is not None and info.labels != spec.labels:
            raise UserError(
                f"the model was fine-tuned with labels {list(info.labels or [])}, not "
                f"{list(spec.labels)}",
                where=self.config.task,
                fix="check --task/--labels",
            )

    def featurizer(self, spm_model_file: str, info: ClassificationInfo) -> AlbertTextFeatures:
        return AlbertTextFeatures(
            spm_model_file, info.max_seq_length, do_lower_case=info.do_lower_case
        )

    def build_model(self, encoder, info: ClassificationInfo, dtype: str) -> AlbertClassifier:
        return AlbertClassifier(
            encoder, info.num_outputs, dropout_rate=self.config.dropout_rate, dtype=dtype
        )

    def training_data(self, run: FinetuneRun) -> TrainingData:
        train = run.inputs.train
        return TrainingData(featurized_examples(train, run.featurizer), len(train))

    def loss(self, info: ClassificationInfo) -> keras.losses.Loss:
        if info.problem == "regression":
            return keras.losses.MeanSquaredError()
        return keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def metrics(self, info: ClassificationInfo) -> list[keras.metrics.Metric]:
        if info.problem == "regression":
            return [keras.metrics.MeanAbsoluteError(name="mae")]
        return [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]

    def distillation_loss(self, info: ClassificationInfo, temperature: float):
        if info.problem == "regression":  # The teacher's scores themselves.
            return score_distillation()
        return logits_distillation(temperature)

    def evaluate(self, run: FinetuneRun) -> dict[str, Any]:
        results: dict[str, Any] = {}
        for dev_name, examples in run.inputs.dev:
            metrics = compute_metrics(run.info.metrics, examples.labels, _predict(run, examples))
            logging.info("%s (%d examples): %s", dev_name, len(examples), metrics)
            results.update({f"{dev_name}/{name}": value for name, value in metrics.items()})
            results[f"{dev_name}/examples"] = len(examples)
        return results

    def predict(self, run: FinetuneRun) -> dict[str, Any]:
        """Writes `predictions/<name>.tsv` per test file; returns their paths."""
        paths = []
        for submission_name, examples in run.inputs.test:
            path = run.path("predictions", f"{submission_name}.tsv")
            write_predictions(path, examples.ids, _predict(run, examples), run.info.labels)
            logging.info("Wrote %d predictions to %s.", len(examples), path)
            paths.append(path)
        return {"predictions": paths}

    def serving_layers(self, run: FinetuneRun) -> list[AlbertTextFeatures]:
        return [built_text_features(run.featurizer, run.info.is_pair)]

    def serving_signatures(self, run: FinetuneRun, predict, layers):
        return classifier_endpoints(predict, run.featurizer, run.info.labels, run.info.is_pair)


def run_classifier(
    config: ClassificationConfig, output_dir: str, runtime: Runtime
) -> dict[str, Any]:
    """Fine-tunes, evaluates, predicts and exports what `config` asks in `runtime`'s speed-only
    forms (`run_finetuning`).

    Returns:
        A flat dict: `train_examples`, `train_steps`, `train_seconds` (when training),
        `<dev name>/<metric>` per dev file (when evaluating), `predictions` (file paths),
        `saved_model` (export path).
    """
    return run_finetuning(config, output_dir, runtime)


def resolve_task(config: ClassificationConfig, labels: tuple[str, ...] | None = None) -> TaskSpec:
    """The task of `config`: a GLUE task or a generic tsv/csv task (labels not yet inferred)."""
    if config.task in GENERIC_FORMATS:
        return generic_task(
            config.task,
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


def _predict(run: FinetuneRun, examples: Examples) -> np.ndarray:
    """Class ids (classification) or scores (regression) for every example."""
    dataset = featurized_examples(examples, run.featurizer, with_labels=False)
    logits = run.predict_outputs(evaluation_batches(dataset, run.config.eval_batch_size))
    if run.info.problem == "regression":
        return logits[:, 0]
    return np.argmax(logits, axis=-1)


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
