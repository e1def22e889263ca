"""The multiple-choice family: RACE's layout and generic JSONL/CSV files, on the driver.

What is its own (`albert_tf.finetune.driver` does the rest):

    inputs       RACE folders or generic files (`examples`); dev may be held out of train
                 by article (`--holdout_fraction`)
    model        `AlbertMultipleChoice`, one score per (context, option), softmax over options
    evaluation   accuracy (+ RACE's middle/high) and the most-frequent-answer baseline
    predictions  predictions/<name>.jsonl: one line per question, id, answer letter, probabilities
    serving      `choose(context, question, options)` (`serving.py`)

Illustration (not run):
    config = MultipleChoiceConfig(task="race", train_file="RACE/train",
                                  dev_file="RACE/dev", init_checkpoint="bundle/")
    run_multiple_choice(config, "/tmp/race", Runtime.for_machine())["dev/accuracy"]
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Sequence
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.finetune.datasets import evaluation_batches
from albert_tf.finetune.distillation.losses import logits_distillation
from albert_tf.finetune.driver import run_finetuning
from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures
from albert_tf.finetune.multiple_choice.datasets import featurized_questions
from albert_tf.finetune.multiple_choice.examples import (
    GenericColumns,
    MultipleChoiceExample,
    read_generic,
    read_race,
    split_by_group,
)
from albert_tf.finetune.multiple_choice.metrics import compute_metrics, most_frequent_answer
from albert_tf.finetune.multiple_choice.multiple_choice_config import MultipleChoiceConfig
from albert_tf.finetune.multiple_choice.serving import (
    built_choice_features,
    multiple_choice_endpoints,
)
from albert_tf.finetune.task_family import (
    FinetuneRun,
    FinetuneTask,
    TaskInfo,
    TaskInputs,
    TrainingData,
)
from albert_tf.models.multiple_choice import AlbertMultipleChoice
from albert_tf.runtime.runtime import Runtime

Examples = list[MultipleChoiceExample]


@dataclasses.dataclass(frozen=True)
class MultipleChoiceInfo(TaskInfo):
    """`task.json`: the encoding's settings and the trivial baseline's answer (from train)."""

    max_qa_length: int
    blank_per_underscore: bool
    # The trivial baseline: always the answer letter most frequent in training.
    baseline_answer: int


@dataclasses.dataclass(frozen=True)
class MultipleChoiceInputs(TaskInputs):
    """The questions of each split the config asks for (dev may be held out of train)."""

    train: Examples | None = None
    dev: Examples | None = None
    test: Examples | None = None


class MultipleChoiceTask(FinetuneTask, family="multiple_choice", config_class=MultipleChoiceConfig):
    """Multiple choice (see the module docstring)."""

    info_class = MultipleChoiceInfo

    def read_inputs(self, saved: MultipleChoiceInfo | None) -> MultipleChoiceInputs:
        """`train`, `dev`, `test` questions, as far as the config asks for them (all checked)."""
        config = self.config
        splits: dict[str, Examples | None] = {"train": None, "dev": None, "test": None}
        sources = {"train": config.train_file, "dev": config.dev_file, "test": config.test_file}
        if config.do_train or (config.do_eval and config.holdout_fraction):
            if not config.train_file:
                raise UserError("no training data", where="--train_file")
            train = self._read(config.train_file)
            if config.holdout_fraction:
                train, splits["dev"] = split_by_group(train, config.holdout_fraction)
                sources["dev"] = config.train_file
                logging.info(
                    "Held out %d of %d questions (by article) as dev.",
                    len(splits["dev"]),
                    len(splits["dev"]) + len(train),
                )
            splits["train"] = train[: config.max_train_examples or None]
        if config.do_eval and splits["dev"] is None:
            if not config.dev_file:
                raise UserError(
                    "nothing to evaluate",
                    where="--dev_file",
                    fix="pass --dev_file or --holdout_fraction",
                )
            splits["dev"] = self._read(config.dev_file)
        if config.do_predict:
            if not config.test_file:
                raise UserError("nothing to predict", where="--test_file")
            splits["test"] = self._read(config.test_file, labeled=False)
        for name, examples in splits.items():
            if examples == []:
                raise UserError(
                    f"no {name} questions",
                    where=sources[name],
                    fix="check the file (or a larger --holdout_fraction)"
                    if name == "dev"
                    else None,
                )
        return MultipleChoiceInputs(**splits)

    def _read(self, file_name: str, labeled: bool = True) -> Examples:
        """The questions of `file_name` in the config's layout."""
        config = self.config
        path = config.data_path(file_name)
        if config.task == "race":
            return read_race(path, labeled)
        columns = GenericColumns(
            context=config.context_column,
            question=config.question_column,
            options=config.options_column,
            option_columns=tuple(config.option_columns),
            label=config.label_column,
            id=config.id_column,
        )
        return read_generic(path, columns, labeled)

    def info_values(self, inputs: MultipleChoiceInputs) -> dict[str, Any]:
        # The task ("race" or "generic") and the encoding's settings are the config's.
        return {"baseline_answer": most_frequent_answer([e.label for e in inputs.train])}

    def featurizer(self, spm_model_file: str, info: MultipleChoiceInfo) -> ChoiceFeatures:
        return ChoiceFeatures(
            spm_model_file,
            info.max_seq_length,
            info.max_qa_length,
            do_lower_case=info.do_lower_case,
            blank_per_underscore=info.blank_per_underscore,
        )

    def build_model(self, encoder, info: MultipleChoiceInfo, dtype: str) -> AlbertMultipleChoice:
        return AlbertMultipleChoice(encoder, dropout_rate=self.config.dropout_rate, dtype=dtype)

    def training_data(self, run: FinetuneRun) -> TrainingData:
        train = run.inputs.train
        return TrainingData(featurized_questions(train, run.featurizer), len(train))

    def loss(self, info: MultipleChoiceInfo) -> keras.losses.Loss:
        return keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def metrics(self, info: MultipleChoiceInfo) -> list[keras.metrics.Metric]:
        return [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]

    def distillation_loss(self, info: MultipleChoiceInfo, temperature: float):
        # Padded options: -1e9 logits in both models, probability 0 on both sides.
        return logits_distillation(temperature)

    def evaluate(self, run: FinetuneRun) -> dict[str, Any]:
        examples = run.inputs.dev
        probabilities = predict_probabilities(run, examples)
        labels = [example.label for example in examples]
        levels = [example.level for example in examples]
        metrics = compute_metrics(labels, probabilities.argmax(axis=-1), levels)
        baseline = [run.info.baseline_answer] * len(examples)
        metrics["baseline_accuracy"] = compute_metrics(labels, baseline, levels)["accuracy"]
        logging.info("dev (%d questions): %s", len(examples), metrics)
        results: dict[str, Any] = {f"dev/{name}": value for name, value in metrics.items()}
        results["dev/examples"] = len(examples)
        return results

    def predict(self, run: FinetuneRun) -> dict[str, Any]:
        test_file = os.path.normpath(self.config.test_file)
        name = os.path.splitext(os.path.basename(test_file))[0]
        path = run.path("predictions", f"{name}.jsonl")
        write_predictions(path, run.inputs.test, predict_probabilities(run, run.inputs.test))
        return {"predictions": path}

    def serving_layers(self, run: FinetuneRun) -> list[ChoiceFeatures]:
        return [built_choice_features(run.featurizer)]

    def serving_signatures(self, run: FinetuneRun, predict, layers):
        return multiple_choice_endpoints(predict, run.featurizer)


def run_multiple_choice(
    config: MultipleChoiceConfig, output_dir: str, runtime: Runtime
) -> dict[str, Any]:
    """Fine-tunes, evaluates, predicts and exports what `config` asks in `runtime`'s speed-only
    forms (`run_finetuning`).

    Returns:
        A flat dict: `train_*` (training), `dev/accuracy` (+ `dev/middle/accuracy`,
        `dev/high/accuracy` for RACE folders, `dev/baseline_accuracy`), `predictions` (path),
        `saved_model` (path).
    """
    return run_finetuning(config, output_dir, runtime)


def predict_probabilities(run: FinetuneRun, examples: Examples) -> np.ndarray:
    """Probabilities `[len(examples), widest]` (0 for padded options)."""
    dataset = featurized_questions(examples, run.featurizer, with_labels=False)
    logits = run.predict_outputs(evaluation_batches(dataset, run.config.eval_batch_size))
    return tf.nn.softmax(logits, axis=-1).numpy()


def write_predictions(
    path: str, examples: Sequence[MultipleChoiceExample], probabilities: np.ndarray
) -> None:
    """JSONL: `{"id", "answer" (letter), "probabilities" (one per option)}` per question."""
    lines = []
    for example, row in zip(examples, probabilities, strict=True):
        row = row[: len(example.options)]
        answer = chr(ord("A") + int(np.argmax(row)))
        values = {
            "id": example.id,
            "answer": answer,
            "probabilities": [round(float(p), 6) for p in row],
        }
        lines.append(json.dumps(values))
    atomic_write_text(path, "\n".join(lines) + "\n")
