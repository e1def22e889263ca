"""`run_multiple_choice`: fine-tune, evaluate, predict and export a multiple-choice task.

The shape of `albert_tf.finetune.classification.run`, through the steps every task family
shares (`albert_tf.finetune.training`). Every input file is read and checked before anything
is written into `output_dir`.

Layout of `output_dir` (besides the shared files of `albert_tf.finetune.training`):
    eval_results.json            accuracy (+ middle/high), and the most-frequent-answer baseline
    predictions/<name>.jsonl     one line per question: id, answer letter, probabilities
    saved_model/                 raw-text SavedModel, signature `choose` (`serving.py`)

Illustration (not run):
    config = MultipleChoiceConfig(task="race", train_file="RACE/train",
                                  dev_file="RACE/dev", init_checkpoint="bundle/")
    run_multiple_choice(config, "/tmp/race")["dev/accuracy"]
"""

from __future__ import annotations

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
from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures
from albert_tf.finetune.multiple_choice.datasets import make_dataset
from albert_tf.finetune.multiple_choice.examples import (
    GenericColumns,
    MultipleChoiceExample,
    read_generic,
    read_race,
    split_by_group,
)
from albert_tf.finetune.multiple_choice.metrics import compute_metrics, most_frequent_answer
from albert_tf.finetune.multiple_choice.multiple_choice_config import MultipleChoiceConfig
from albert_tf.finetune.multiple_choice.serving import export_multiple_choice
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
from albert_tf.models.multiple_choice import AlbertMultipleChoice
from albert_tf.output_lock import output_lock
from albert_tf.runtime.prediction import predict_outputs
from albert_tf.training.summaries import write_scalars

Examples = list[MultipleChoiceExample]


def read_examples(config: MultipleChoiceConfig, path: str, labeled: bool = True) -> Examples:
    """The questions of `path` in `config.task`'s layout."""
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


def read_data(config: MultipleChoiceConfig) -> dict[str, Examples]:
    """`train`, `dev`, `test` examples, as far as `config` asks for them (all checked)."""
    need_dev = config.do_eval
    data: dict[str, Examples] = {}
    if config.do_train or (need_dev and config.holdout_fraction):
        if not config.train_file:
            raise UserError("no training data", where="--train_file")
        train_examples = read_examples(config, config.train_file)
        if config.holdout_fraction:
            train_examples, data["dev"] = split_by_group(train_examples, config.holdout_fraction)
            logging.info(
                "Held out %d of %d questions (by article) as dev.",
                len(data["dev"]),
                len(data["dev"]) + len(train_examples),
            )
        if config.max_train_examples:
            train_examples = train_examples[: config.max_train_examples]
        data["train"] = train_examples
    if need_dev and "dev" not in data:
        if not config.dev_file:
            raise UserError(
                "nothing to evaluate",
                where="--dev_file",
                fix="pass --dev_file or --holdout_fraction",
            )
        data["dev"] = read_examples(config, config.dev_file)
    if config.do_predict:
        if not config.test_file:
            raise UserError("nothing to predict", where="--test_file")
        data["test"] = read_examples(config, config.test_file, labeled=False)
    sources = {"train": config.train_file, "test": config.test_file}
    sources["dev"] = config.train_file if config.holdout_fraction else config.dev_file
    for name, examples in data.items():
        if not examples:
            raise UserError(
                f"no {name} questions",
                where=sources[name],
                fix="check the file (or a larger --holdout_fraction)" if name == "dev" else None,
            )
    return data


def run_multiple_choice(config: MultipleChoiceConfig, output_dir: str) -> dict[str, Any]:
    """Runs what `config` asks (`do_train`, `do_eval`, `do_predict`, `export_saved_model`).

    Returns:
        A flat dict: `train_*` (training), `dev/accuracy` (+ `dev/middle/accuracy`,
        `dev/high/accuracy` for RACE folders, `dev/baseline_accuracy`), `predictions` (path),
        `saved_model` (path).

    Raises:
        UserError: bad data (names file and line or id), an encoder that does not fit, no
            finished run to evaluate.
    """
    with output_lock(output_dir, directory=True):  # One job per output directory.
        return _run_multiple_choice(config, output_dir)


def _run_multiple_choice(config: MultipleChoiceConfig, output_dir: str) -> dict[str, Any]:
    strategy, precision = start(config)
    data = read_data(config)
    if config.do_train:
        model, features, task_info = _build(config, data["train"], output_dir, strategy, precision)
    else:
        model = load_finetuned_model(output_dir, strategy)
        task_info = read_task_file(output_dir)
        features = ChoiceFeatures(
            run_spm_file(output_dir),
            task_info["max_seq_length"],
            task_info["max_qa_length"],
            do_lower_case=task_info["do_lower_case"],
            blank_per_underscore=task_info["blank_per_underscore"],
        )
    results: dict[str, Any] = {}
    if config.do_train:
        dataset = make_dataset(
            data["train"], features, config.train_batch_size, training=True, seed=config.seed
        )
        results.update(
            train(
                model,
                dataset,
                len(data["train"]),
                config,
                output_dir,
                strategy,
                loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
            )
        )
    if config.do_eval:
        results.update(
            _evaluate(model, features, data["dev"], task_info, config, output_dir, strategy)
        )
    if config.do_predict:
        probabilities = predict_probabilities(
            model, features, data["test"], config.eval_batch_size, strategy
        )
        name = os.path.splitext(os.path.basename(os.path.normpath(config.test_file)))[0]
        path = os.path.join(output_dir, "predictions", f"{name}.jsonl")
        write_predictions(path, data["test"], probabilities)
        results["predictions"] = path
    if config.export_saved_model:
        results["saved_model"] = export_multiple_choice(
            os.path.join(output_dir, "saved_model"), model, features, overwrite=True
        )
    return results


def _build(
    config: MultipleChoiceConfig,
    train_examples: Examples,
    output_dir: str,
    strategy: tf.distribute.Strategy,
    precision: str,
) -> tuple[AlbertMultipleChoice, ChoiceFeatures, dict[str, Any]]:
    """The model and featurizer to train; writes the run files (inputs already checked)."""
    with strategy.scope():
        pretrained = load_finetuning_encoder(config, precision)
        features = ChoiceFeatures(
            pretrained.spm_model_file,
            config.max_seq_length,
            config.max_qa_length,
            do_lower_case=pretrained.do_lower_case,
            blank_per_underscore=config.blank_per_underscore,
        )
        model = AlbertMultipleChoice(
            pretrained.encoder, dropout_rate=config.dropout_rate, dtype=precision
        )
    task_info = {
        "task": config.task,
        "max_seq_length": config.max_seq_length,
        "max_qa_length": config.max_qa_length,
        "do_lower_case": pretrained.do_lower_case,
        "blank_per_underscore": config.blank_per_underscore,
        # The trivial baseline: always the answer letter most frequent in training.
        "baseline_answer": most_frequent_answer([e.label for e in train_examples]),
    }
    write_run_files(output_dir, config, task_info, pretrained.spm_model_file)
    return model, features, task_info


def predict_probabilities(
    model: keras.Model,
    features: ChoiceFeatures,
    examples: Examples,
    batch_size: int,
    strategy: tf.distribute.Strategy | None = None,
) -> np.ndarray:
    """Probabilities `[len(examples), widest]` (0 for padded options)."""
    dataset = make_dataset(examples, features, batch_size, with_labels=False)
    return tf.nn.softmax(predict_outputs(model, dataset, strategy), axis=-1).numpy()


def _evaluate(
    model: keras.Model,
    features: ChoiceFeatures,
    examples: Examples,
    task_info: dict[str, Any],
    config: MultipleChoiceConfig,
    output_dir: str,
    strategy: tf.distribute.Strategy,
) -> dict[str, float]:
    probabilities = predict_probabilities(
        model, features, examples, config.eval_batch_size, strategy
    )
    labels = [example.label for example in examples]
    levels = [example.level for example in examples]
    metrics = compute_metrics(labels, probabilities.argmax(axis=-1), levels)
    baseline = [task_info["baseline_answer"]] * len(examples)
    metrics["baseline_accuracy"] = compute_metrics(labels, baseline, levels)["accuracy"]
    logging.info("dev (%d questions): %s", len(examples), metrics)
    results = {f"dev/{name}": value for name, value in metrics.items()}
    writer = tf.summary.create_file_writer(os.path.join(output_dir, "logs", "eval"))
    write_scalars(writer, results, optimizer_step(model))
    writer.close()
    results["dev/examples"] = len(examples)
    atomic_write_text(os.path.join(output_dir, "eval_results.json"), json.dumps(results, indent=2))
    return results


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
