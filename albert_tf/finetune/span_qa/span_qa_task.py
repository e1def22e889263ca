"""The span QA family: extractive QA on SQuAD v1.1 / v2.0 files, on the driver.

What is its own (`albert_tf.finetune.driver` does the rest): the training windows and their
(start, end) labels (`features`) train `AlbertSpanQA` with `span_loss`. The windows of each
`--predict_file` are predicted once per run and decoded (`decoding`); evaluation scores the
files that have answers with the official figures (`scoring`; `--do_predict` scores them too,
as the original's run_squad does), prediction writes the files:

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
    config = SpanQaConfig(train_file="train.json", predict_file="dev.json",
                          version_2_with_negative=True, init_checkpoint="bundle/")
    run_span_qa(config, "/tmp/squad", Runtime.for_machine())["dev/f1"]
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from typing import Any

import numpy as np
import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.finetune.datasets import evaluation_batches
from albert_tf.finetune.driver import run_finetuning
from albert_tf.finetune.span_qa.decoding import AnswerRules, Predictions, decode
from albert_tf.finetune.span_qa.examples import SquadData, read_squad
from albert_tf.finetune.span_qa.features import SquadFeaturizer, SquadWindows
from albert_tf.finetune.span_qa.scoring import evaluate
from albert_tf.finetune.span_qa.serving import serving_tokenizer, span_qa_endpoints
from albert_tf.finetune.span_qa.span_qa_config import SpanQaConfig
from albert_tf.finetune.task_family import (
    FinetuneRun,
    FinetuneTask,
    TaskInfo,
    TaskInputs,
    TrainingData,
)
from albert_tf.models.span_qa import AlbertSpanQA, span_loss
from albert_tf.runtime.runtime import Runtime
from albert_tf.tokenization.tokenizer import AlbertTokenizer

# The logit of positions a prediction batch was cut at: padding, where no answer starts or ends.
PADDING_LOGIT = -1e4


@dataclasses.dataclass(frozen=True)
class SpanQaInfo(TaskInfo):
    """`task.json`: the SQuAD version, the windowing, and the null threshold chosen on dev."""

    version_2_with_negative: bool
    doc_stride: int
    max_query_length: int
    null_score_diff_threshold: float | None = None


@dataclasses.dataclass(frozen=True)
class SpanQaInputs(TaskInputs):
    """The training questions, and each `--predict_file` by its file stem."""

    train: SquadData | None = None
    predict: list[tuple[str, SquadData]] | None = None


class SpanQaTask(FinetuneTask, family="span_qa", config_class=SpanQaConfig):
    """Extractive QA (see the module docstring)."""

    info_class = SpanQaInfo

    def evaluates(self) -> bool:
        # As the original's run_squad, predicting a file with answers scores it too.
        return self.config.do_eval or self.config.do_predict

    def read_inputs(self, saved: SpanQaInfo | None) -> SpanQaInputs:
        config, train, predict = self.config, None, None
        v2 = config.version_2_with_negative
        if config.do_train:
            if not config.train_file:
                raise UserError("--do_train needs a training file", where="--train_file")
            read = read_squad(config.data_path(config.train_file), v2)
            examples = read.examples[: config.max_train_examples or None]
            train = SquadData(examples, read.is_v2, read.path)
        if self.evaluates():
            if not config.predict_files:
                raise UserError("--do_predict needs a file to predict", where="--predict_file")
            predict = [(_stem(path), read_squad(path, v2)) for path in config.predict_files]
        return SpanQaInputs(train, predict)

    def info_values(self, inputs: SpanQaInputs) -> dict[str, Any]:
        return {"task": "squad"}  # The rest is the config's (lengths, version, threshold).

    def check(self, inputs: SpanQaInputs, info: SpanQaInfo) -> None:
        if info.task != "squad":
            raise UserError(
                f"the output directory holds a {info.task!r} run, not SQuAD",
                where="--output_dir",
                fix="point --output_dir at an albert-tf span-qa run",
            )
        if info.version_2_with_negative != self.config.version_2_with_negative:
            raise UserError(
                f"the run was fine-tuned with version_2_with_negative="
                f"{info.version_2_with_negative}",
                where="--version_2_with_negative",
                fix="pass the same setting as for training",
            )

    def featurizer(self, spm_model_file: str, info: SpanQaInfo) -> SquadFeaturizer:
        tokenizer = AlbertTokenizer(spm_model_file, info.do_lower_case)
        return SquadFeaturizer(
            tokenizer, info.max_seq_length, info.doc_stride, info.max_query_length
        )

    def build_model(self, encoder, info: SpanQaInfo, dtype: str) -> AlbertSpanQA:
        return AlbertSpanQA(encoder, dtype=dtype)

    def training_data(self, run: FinetuneRun) -> TrainingData:
        questions = run.inputs.train.examples
        windows = run.featurizer.featurize(questions)
        answered = int(np.count_nonzero(windows.labels[:, 0]))
        logging.info(
            "%d training questions -> %d windows (%d hold the answer).",
            len(questions),
            len(windows),
            answered,
        )
        examples = tf.data.Dataset.from_tensor_slices((windows.features(), windows.labels))
        results = {"train_windows": len(windows), "train_questions": len(questions)}
        return TrainingData(examples, len(windows), results)

    def loss(self, info: SpanQaInfo):
        return span_loss

    def evaluate(self, run: FinetuneRun) -> dict[str, Any]:
        """The official figures of every predict file with answers; a v2 run's threshold is
        chosen on the first such v2 file (stored in `task.json`) unless given."""
        results: dict[str, Any] = {}
        for stem, data in run.inputs.predict:
            results.update(self._predicted(run, stem, data)[1])
        results["null_score_diff_threshold"] = self.threshold(run.info)
        return results

    def predict(self, run: FinetuneRun) -> dict[str, Any]:
        """Writes `predictions/<file stem>/` per predict file; returns the directories."""
        directories = []
        for stem, data in run.inputs.predict:
            predictions, _ = self._predicted(run, stem, data)
            directory = run.path("predictions", stem)
            with_null = run.info.version_2_with_negative and data.is_v2
            write_prediction_files(directory, predictions, with_null)
            directories.append(directory)
        return {"predictions": directories}

    def threshold(self, info: SpanQaInfo) -> float:
        """`--null_score_diff_threshold`, else the one chosen on dev, else 0.0."""
        if self.config.null_score_diff_threshold is not None:
            return self.config.null_score_diff_threshold
        stored = info.null_score_diff_threshold
        return 0.0 if stored is None else float(stored)

    def _predicted(
        self, run: FinetuneRun, stem: str, data: SquadData
    ) -> tuple[Predictions, dict[str, Any]]:
        """(decoded predictions, scores) of a predict file, computed once per run."""
        return run.shared(f"span_qa/{stem}", lambda: self._predict_file(run, stem, data))

    def _predict_file(
        self, run: FinetuneRun, stem: str, data: SquadData
    ) -> tuple[Predictions, dict[str, Any]]:
        with_null = run.info.version_2_with_negative and data.is_v2
        windows = run.featurizer.featurize(data.examples)
        logits = _logits(run, windows)
        rules = AnswerRules(self.config.max_answer_length, with_null)
        n_best_size = self.config.n_best_size
        predictions = decode(data.examples, windows, logits, rules, n_best_size)
        if with_null and self.config.null_score_diff_threshold is None:
            # Choose the threshold on this file (best F1), once per run.
            scores = evaluate(data.examples, predictions.best_spans, predictions.null_odds)
            if run.info.null_score_diff_threshold is None:
                run.update_info(
                    run.info.replace(null_score_diff_threshold=scores["best_f1_thresh"])
                )
                logging.info(
                    "null_score_diff_threshold %.4f chosen on %s.", self.threshold(run.info), stem
                )
        if with_null:
            rules = dataclasses.replace(rules, null_score_diff_threshold=self.threshold(run.info))
            predictions = decode(data.examples, windows, logits, rules, n_best_size)
        version = 2 if with_null else 1
        scores = evaluate(data.examples, predictions.answers, predictions.null_odds, version)
        results: dict[str, Any] = {f"{stem}/{name}": value for name, value in scores.items()}
        results[f"{stem}/windows"] = len(windows)
        logging.info("%s: %s", data.path, scores)
        return predictions, results

    def serving_layers(self, run: FinetuneRun) -> list:
        return [serving_tokenizer(run.featurizer)]

    def serving_signatures(self, run: FinetuneRun, predict, layers):
        rules = AnswerRules(
            self.config.max_answer_length,
            run.info.version_2_with_negative,
            self.threshold(run.info),
        )
        [tokenizer] = layers
        return span_qa_endpoints(predict, tokenizer, run.featurizer, rules)


def run_span_qa(config: SpanQaConfig, output_dir: str, runtime: Runtime) -> dict[str, Any]:
    """Fine-tunes, predicts, scores and exports what `config` asks in `runtime`'s speed-only forms
    (`run_finetuning`).

    Returns:
        A flat dict: `train_*` (when training), `<file stem>/<figure>` per predicted file with
        gold answers, `null_score_diff_threshold`, `saved_model` (export path).
    """
    return run_finetuning(config, output_dir, runtime)


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def _logits(run: FinetuneRun, windows: SquadWindows) -> np.ndarray:
    dataset = tf.data.Dataset.from_tensor_slices(windows.features())
    batches = evaluation_batches(dataset, run.config.eval_batch_size)
    return run.predict_outputs(batches, position_fill=PADDING_LOGIT)


def write_prediction_files(directory: str, predictions: Predictions, with_null: bool) -> None:
    """`predictions.json`, `nbest_predictions.json` and (v2) `null_odds.json`, official format."""
    os.makedirs(directory, exist_ok=True)
    files = {"predictions.json": predictions.answers, "nbest_predictions.json": predictions.nbest}
    if with_null:
        files["null_odds.json"] = predictions.null_odds
    for name, content in files.items():
        atomic_write_text(os.path.join(directory, name), json.dumps(content, indent=2) + "\n")
