"""`run_squad`: fine-tune, predict, score and export extractive QA (SQuAD v1.1 / v2.0).

One function takes a `SquadConfig` and an `output_dir` and does the whole run through the
steps every task family shares (`albert_tf.finetune.training`): the training windows and their
(start, end) labels feed plain Keras `fit` with `span_loss`; prediction runs `predict` over the
windows of each `--predict_file` and decodes them (decoding.py).

Layout of `output_dir` (besides the shared files of `albert_tf.finetune.training`):
    predictions/<file stem>/predictions.json        {id: answer} (official format)
    predictions/<file stem>/nbest_predictions.json  {id: [{text, probability, ...}]}
    predictions/<file stem>/null_odds.json          {id: null - best span score} (v2 runs)
    eval_results.json                               official figures per predicted file
    saved_model/                                    `answer(question, context)` (serving.py)

v1.1 vs v2.0: a file with unanswerable questions needs `--version_2_with_negative` (else a
`UserError`). A v2 run's null threshold is chosen on the first v2 predict file with gold
answers (best F1; `<stem>/best_f1_thresh`), stored in `task.json` and used for its
predictions and the SavedModel, unless `--null_score_diff_threshold` is given. A v1.1 file
predicted by a v2 run is answered and scored without no-answers (every question has one).

Illustration (not run):
    config = SquadConfig(train_file="train.json", predict_file="dev.json",
                         version_2_with_negative=True, init_checkpoint="bundle/")
    run_squad(config, "/tmp/squad")["dev/f1"]
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import numpy as np
import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import MissingInputError, UserError
from albert_tf.file_names import TASK_FILE
from albert_tf.finetune.span_qa.decoding import Predictions, decode
from albert_tf.finetune.span_qa.examples import SquadData, read_squad
from albert_tf.finetune.span_qa.features import SquadFeaturizer, SquadWindows
from albert_tf.finetune.span_qa.scoring import evaluate
from albert_tf.finetune.span_qa.squad_config import SquadConfig
from albert_tf.finetune.training import (
    load_finetuned_model,
    load_finetuning_encoder,
    read_task_file,
    run_spm_file,
    start,
    train,
    write_run_files,
)
from albert_tf.models.span_qa import AlbertSpanQA, span_loss
from albert_tf.output_lock import output_lock
from albert_tf.runtime.prediction import predict_outputs
from albert_tf.tokenization.tokenizer import AlbertTokenizer

# The logit of positions a prediction batch was cut at: padding, where no answer starts or ends.
PADDING_LOGIT = -1e4


def run_squad(config: SquadConfig, output_dir: str) -> dict[str, Any]:
    """Runs what `config` asks (`do_train`, `do_eval`/`do_predict`, `export_saved_model`).

    Returns:
        A flat dict: `train_*` (when training), `<file stem>/<figure>` per predicted file with
        gold answers, `null_score_diff_threshold`, `saved_model` (export path).
    """
    with output_lock(output_dir, directory=True):  # One job per output directory.
        return _run_squad(config, output_dir)


def _run_squad(config: SquadConfig, output_dir: str) -> dict[str, Any]:
    config.check_files()
    if config.do_eval or config.do_predict:  # Before training: not after an hour of it.
        for path in config.predict_files:
            if "://" not in path and not os.path.exists(path):
                raise MissingInputError(
                    "no such file", where=path, fix="check the --predict_file path"
                )
    strategy, precision = start(config)
    if config.do_train:
        run = _Run.for_training(config, output_dir, strategy, precision)
    else:
        run = _Run.from_output_dir(config, output_dir, strategy)
    results: dict[str, Any] = {}
    if config.do_train:
        results.update(run.train())
    if config.do_eval or config.do_predict:
        results.update(run.predict_and_score())
    if config.export_saved_model:
        from albert_tf.finetune.span_qa.serving import export_span_qa

        results["saved_model"] = export_span_qa(
            os.path.join(output_dir, "saved_model"),
            run.model,
            run.featurizer,
            n_best_size=config.n_best_size,
            max_answer_length=config.max_answer_length,
            with_null=run.task["version_2_with_negative"],
            null_score_diff_threshold=run.threshold(),
            overwrite=True,
        )
    return results


def windows_dataset(
    windows: SquadWindows, batch_size: int, seed: int, training: bool = True
) -> tf.data.Dataset:
    """Batches of (features, labels [B, 2]); training: shuffled, repeated, full batches."""
    dataset = tf.data.Dataset.from_tensor_slices((windows.features(), windows.labels))
    if training:
        dataset = dataset.shuffle(len(windows), seed=seed, reshuffle_each_iteration=True).repeat()
    return dataset.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


class _Run:
    """The settings, featurizer and model of one run, with its train/predict steps."""

    def __init__(self, config, output_dir, strategy, task, featurizer, model, train_data=None):
        self.config = config
        self.output_dir = output_dir
        self.strategy = strategy
        self.task = task
        self.featurizer = featurizer
        self.model = model
        self.train_data = train_data

    @classmethod
    def for_training(cls, config: SquadConfig, output_dir: str, strategy, precision) -> _Run:
        """Reads and checks the training file, then writes the run files into `output_dir`."""
        train_data = read_squad(config.train_file, config.version_2_with_negative)
        if config.max_train_examples:
            examples = train_data.examples[: config.max_train_examples]
            train_data = SquadData(examples, train_data.is_v2, train_data.path)
        with strategy.scope():
            pretrained = load_finetuning_encoder(config, precision)
            model = AlbertSpanQA(pretrained.encoder, dtype=precision)
        tokenizer = AlbertTokenizer(pretrained.spm_model_file, pretrained.do_lower_case)
        featurizer = SquadFeaturizer(
            tokenizer, config.max_seq_length, config.doc_stride, config.max_query_length
        )
        task = {
            "task": "squad",
            "version_2_with_negative": config.version_2_with_negative,
            "max_seq_length": config.max_seq_length,
            "doc_stride": config.doc_stride,
            "max_query_length": config.max_query_length,
            "do_lower_case": pretrained.do_lower_case,
            "null_score_diff_threshold": config.null_score_diff_threshold,
        }
        write_run_files(output_dir, config, task, pretrained.spm_model_file)
        return cls(config, output_dir, strategy, task, featurizer, model, train_data)

    @classmethod
    def from_output_dir(cls, config: SquadConfig, output_dir: str, strategy) -> _Run:
        task = read_task_file(output_dir)
        if task.get("task") != "squad":
            raise UserError(
                f"{output_dir} holds a {task.get('task')!r} run, not SQuAD",
                where=output_dir,
                fix="point --output_dir at a run_squad.py run",
            )
        if task["version_2_with_negative"] != config.version_2_with_negative:
            raise UserError(
                "the run was fine-tuned with version_2_with_negative="
                f"{task['version_2_with_negative']}",
                where="--version_2_with_negative",
                fix="pass the same setting as for training",
            )
        model = load_finetuned_model(output_dir, strategy)
        tokenizer = AlbertTokenizer(run_spm_file(output_dir), task["do_lower_case"])
        featurizer = SquadFeaturizer(
            tokenizer, task["max_seq_length"], task["doc_stride"], task["max_query_length"]
        )
        return cls(config, output_dir, strategy, task, featurizer, model)

    def threshold(self) -> float:
        """`--null_score_diff_threshold`, else the one chosen on dev, else 0.0."""
        if self.config.null_score_diff_threshold is not None:
            return self.config.null_score_diff_threshold
        stored = self.task.get("null_score_diff_threshold")
        return 0.0 if stored is None else float(stored)

    def train(self) -> dict[str, Any]:
        windows = self.featurizer.featurize(self.train_data.examples)
        answered = int(np.count_nonzero(windows.labels[:, 0]))
        logging.info(
            "%d training questions -> %d windows (%d hold the answer).",
            len(self.train_data.examples),
            len(windows),
            answered,
        )
        dataset = windows_dataset(windows, self.config.train_batch_size, self.config.seed)
        results = train(
            self.model,
            dataset,
            len(windows),
            self.config,
            self.output_dir,
            self.strategy,
            loss=span_loss,
            metrics=[],
        )
        results["train_windows"] = len(windows)
        results["train_questions"] = len(self.train_data.examples)
        return results

    def predict_and_score(self) -> dict[str, Any]:
        results: dict[str, Any] = {}
        for path in self.config.predict_files:
            results.update(self._predict_file(path))
        results["null_score_diff_threshold"] = self.threshold()
        atomic_write_text(
            os.path.join(self.output_dir, "eval_results.json"), json.dumps(results, indent=2)
        )
        return results

    def logits(self, windows: SquadWindows) -> np.ndarray:
        dataset = tf.data.Dataset.from_tensor_slices(windows.features())
        dataset = dataset.batch(self.config.eval_batch_size).prefetch(tf.data.AUTOTUNE)
        return predict_outputs(self.model, dataset, self.strategy, position_fill=PADDING_LOGIT)

    def _predict_file(self, path: str) -> dict[str, Any]:
        with_null = bool(self.task["version_2_with_negative"])
        data = read_squad(path, with_null)
        with_null = with_null and data.is_v2
        windows = self.featurizer.featurize(data.examples)
        logits = self.logits(windows)
        stem = os.path.splitext(os.path.basename(path))[0]
        results: dict[str, Any] = {}
        decode_args = dict(
            n_best_size=self.config.n_best_size,
            max_answer_length=self.config.max_answer_length,
            with_null=with_null,
        )
        version = 2 if with_null else 1
        predictions = decode(data.examples, windows, logits, **decode_args)
        if with_null and self.config.null_score_diff_threshold is None:
            # Choose the threshold on this file (best F1), once per run.
            scores = evaluate(data.examples, predictions.best_spans, predictions.null_odds)
            if self.task.get("null_score_diff_threshold") is None:
                self.task["null_score_diff_threshold"] = scores["best_f1_thresh"]
                atomic_write_text(
                    os.path.join(self.output_dir, TASK_FILE), json.dumps(self.task, indent=2)
                )
                logging.info("null_score_diff_threshold %.4f chosen on %s.", self.threshold(), path)
        if with_null:
            predictions = decode(
                data.examples,
                windows,
                logits,
                null_score_diff_threshold=self.threshold(),
                **decode_args,
            )
        scores = evaluate(data.examples, predictions.answers, predictions.null_odds, version)
        results.update({f"{stem}/{name}": value for name, value in scores.items()})
        results[f"{stem}/windows"] = len(windows)
        write_prediction_files(
            os.path.join(self.output_dir, "predictions", stem), predictions, with_null
        )
        logging.info("%s: %s", path, scores)
        return results


def write_prediction_files(directory: str, predictions: Predictions, with_null: bool) -> None:
    """`predictions.json`, `nbest_predictions.json` and (v2) `null_odds.json`, official format."""
    os.makedirs(directory, exist_ok=True)
    files = {"predictions.json": predictions.answers, "nbest_predictions.json": predictions.nbest}
    if with_null:
        files["null_odds.json"] = predictions.null_odds
    for name, content in files.items():
        atomic_write_text(os.path.join(directory, name), json.dumps(content, indent=2) + "\n")
