"""`run_tagging`: fine-tune, evaluate, predict and export a token classification task.

One function takes a `TaggingConfig` and an `output_dir` and does the whole run with plain
Keras `compile`/`fit`, through the steps every task family shares (`albert_tf.finetune.training`).
Every input file the run needs is read and checked before anything is written, so a bad file
fails with its name and line and leaves `output_dir` as it was.

Layout of `output_dir` (besides the shared files of `albert_tf.finetune.training`):
    eval_results.json        conlleval scores of the dev file (`dev/...`) and, beside them, of
                             the most-frequent-tag baseline (`baseline/...`)
    predictions/dev.conll    `word gold predicted` per line, blank line between sentences
    predictions/test.conll   the same for the test file (`word predicted` if it has no tags)
    saved_model/             `tag(text)` / `tag_words(words, num_words)` (`export_tagger`)

Illustration (not run):
    config = TaggingConfig(data_dir="wnut17", train_file="wnut17train.conll",
                           dev_file="emerging.dev.conll", init_checkpoint="bundle/")
    run_tagging(config, "/tmp/wnut17")["dev/f1"]
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import keras
import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.finetune.tagging.baseline import most_frequent_tags, predict_most_frequent
from albert_tf.finetune.tagging.conlleval import conlleval
from albert_tf.finetune.tagging.datasets import make_training_dataset, predict_tag_ids
from albert_tf.finetune.tagging.sentences import TaggedSentences, read_tagged_file
from albert_tf.finetune.tagging.serving import export_tagger
from albert_tf.finetune.tagging.tag_schemes import canonical_scheme
from albert_tf.finetune.tagging.tagging_config import TaggingConfig
from albert_tf.finetune.tagging.word_pieces import IGNORE_LABEL, WordPieceAligner
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
from albert_tf.models.token_classifier import AlbertTokenClassifier
from albert_tf.output_lock import output_lock
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer
from albert_tf.training.summaries import write_scalars


def run_tagging(config: TaggingConfig, output_dir: str) -> dict[str, Any]:
    """Runs what `config` asks (`do_train`, `do_eval`, `do_predict`, `export_saved_model`).

    Returns:
        A flat dict: `train_examples` (windows), `train_steps`, `train_seconds` (training),
        `dev/<metric>` and `baseline/<metric>` (evaluating), `predictions` (file paths),
        `saved_model` (export path).

    Raises:
        UserError: bad data (names file and line), a tag missing from the training tags, a
            tokenizer whose vocabulary differs from the encoder's.
    """
    with output_lock(output_dir, directory=True):  # One job per output directory.
        return _run_tagging(config, output_dir)


def _run_tagging(config: TaggingConfig, output_dir: str) -> dict[str, Any]:
    strategy, precision = start(config)
    inputs = _Inputs.read(config)
    if config.do_train:
        run = _Run.for_training(config, output_dir, strategy, precision, inputs)
    else:
        run = _Run.from_output_dir(config, output_dir, strategy, inputs)
    results: dict[str, Any] = {}
    if config.do_train:
        results.update(run.train())
    if config.do_eval:
        results.update(run.evaluate())
    if config.do_predict:
        results["predictions"] = [run.predict()]
    if config.export_saved_model:
        results["saved_model"] = export_tagger(
            os.path.join(output_dir, "saved_model"),
            run.model,
            run.aligner,
            run.labels,
            overwrite=True,
        )
    return results


class _Inputs:
    """Every file the run reads, read and checked up front."""

    def __init__(self, config: TaggingConfig):
        self.config = config
        self.train: TaggedSentences | None = None
        self.dev: TaggedSentences | None = None
        self.test: TaggedSentences | None = None

    @classmethod
    def read(cls, config: TaggingConfig) -> _Inputs:
        inputs = cls(config)
        # The baseline needs the training file when evaluating too.
        train_path = config.data_path(config.train_file)
        if config.do_train or (config.do_eval and os.path.isfile(train_path)):
            inputs.train = inputs._read(config.train_file, labeled=True)
            if config.max_train_examples:
                inputs.train = inputs.train.take(config.max_train_examples)
        if config.do_eval:
            inputs.dev = inputs._read(config.dev_file, labeled=True)
        if config.do_predict:
            inputs.test = inputs._read(config.test_file, labeled=None)
        return inputs

    def _read(self, file_name: str, labeled: bool | None) -> TaggedSentences:
        config = self.config
        return read_tagged_file(
            config.data_path(file_name),
            config.file_format,
            config.tag_column,
            config.tag_scheme,
            labeled=labeled,
        )

    def check_tags(self, labels: tuple[str, ...]) -> None:
        """Training and dev tags must be among `labels` (UserError at file and line); a test
        file's tags are only copied to the predictions, so any tag may appear there."""
        for sentences in (self.train, self.dev):
            if sentences is not None and sentences.tags is not None:
                sentences.tag_ids(labels)


def tag_set(sentences: TaggedSentences) -> tuple[str, ...]:
    """The tags of a training file: `O` first (when present), then sorted."""
    tags = {tag for sentence in sentences.tags for tag in sentence}
    return tuple(sorted(tags, key=lambda tag: (tag != "O", tag)))


class _Run:
    """The labels, aligner and model of one run, with its train/evaluate/predict steps."""

    def __init__(self, config, output_dir, strategy, inputs, labels, aligner, model):
        self.config = config
        self.output_dir = output_dir
        self.strategy = strategy
        self.inputs = inputs
        self.labels = labels
        self.aligner = aligner
        self.model = model

    @classmethod
    def for_training(
        cls,
        config: TaggingConfig,
        output_dir: str,
        strategy: tf.distribute.Strategy,
        precision: str,
        inputs: _Inputs,
    ) -> _Run:
        labels = tuple(config.labels) or tag_set(inputs.train)
        inputs.check_tags(labels)
        with strategy.scope():
            pretrained = load_finetuning_encoder(config, precision)
            tokenizer = AlbertTextTokenizer(
                proto=pretrained.spm_model_file, do_lower_case=pretrained.do_lower_case
            )
            model = AlbertTokenClassifier(
                pretrained.encoder,
                len(labels),
                dropout_rate=config.dropout_rate,
                labels=labels,
                dtype=precision,
            )
        aligner = WordPieceAligner(tokenizer, config.max_seq_length, config.label_all_pieces)
        task_info = {
            "task": "tagging",
            "labels": list(labels),
            "tag_scheme": canonical_scheme(config.tag_scheme),
            "max_seq_length": config.max_seq_length,
            "do_lower_case": pretrained.do_lower_case,
            "label_all_pieces": config.label_all_pieces,
        }
        write_run_files(output_dir, config, task_info, pretrained.spm_model_file)
        return cls(config, output_dir, strategy, inputs, labels, aligner, model)

    @classmethod
    def from_output_dir(
        cls,
        config: TaggingConfig,
        output_dir: str,
        strategy: tf.distribute.Strategy,
        inputs: _Inputs,
    ) -> _Run:
        saved = read_task_file(output_dir)
        labels = tuple(saved["labels"])
        if config.labels and tuple(config.labels) != labels:
            raise UserError(
                f"the model was fine-tuned with tags {list(labels)}, not {list(config.labels)}",
                where=output_dir,
                fix="leave --labels out",
            )
        inputs.check_tags(labels)
        model = load_finetuned_model(output_dir, strategy)
        tokenizer = AlbertTextTokenizer(
            proto=run_spm_file(output_dir), do_lower_case=saved["do_lower_case"]
        )
        aligner = WordPieceAligner(tokenizer, saved["max_seq_length"], saved["label_all_pieces"])
        return cls(config, output_dir, strategy, inputs, labels, aligner, model)

    # -- steps -----------------------------------------------------------
    def train(self) -> dict[str, Any]:
        config, sentences = self.config, self.inputs.train
        dataset, num_windows = make_training_dataset(
            sentences.words,
            sentences.tag_ids(self.labels),
            self.aligner,
            config.train_batch_size,
            seed=config.seed,
        )
        logging.info("%d training sentences -> %d windows.", len(sentences), num_windows)
        loss = keras.losses.SparseCategoricalCrossentropy(
            from_logits=True, ignore_class=IGNORE_LABEL
        )
        results = train(
            self.model, dataset, num_windows, config, self.output_dir, self.strategy, loss, []
        )
        results["train_sentences"] = len(sentences)
        return results

    def evaluate(self) -> dict[str, Any]:
        dev = self.inputs.dev
        predicted = self._predict_tags(dev)
        scores = conlleval(dev.tags, predicted)
        results: dict[str, Any] = {f"dev/{name}": value for name, value in scores.items()}
        results["dev/sentences"] = len(dev)
        if self.inputs.train is not None:
            table = most_frequent_tags(self.inputs.train.words, self.inputs.train.tags)
            baseline = conlleval(dev.tags, predict_most_frequent(dev.words, table))
            results.update({f"baseline/{name}": value for name, value in baseline.items()})
        logging.info(
            "dev: F1 %.4f, accuracy %.4f (baseline F1 %s)",
            scores["f1"],
            scores["accuracy"],
            results.get("baseline/f1"),
        )
        step = optimizer_step(self.model)
        writer = tf.summary.create_file_writer(os.path.join(self.output_dir, "logs", "eval"))
        write_scalars(
            writer,
            {name: value for name, value in results.items() if isinstance(value, float)},
            step,
        )
        writer.close()
        write_predictions(os.path.join(self.output_dir, "predictions", "dev.conll"), dev, predicted)
        atomic_write_text(
            os.path.join(self.output_dir, "eval_results.json"), json.dumps(results, indent=2)
        )
        return results

    def predict(self) -> str:
        test = self.inputs.test
        path = os.path.join(self.output_dir, "predictions", "test.conll")
        write_predictions(path, test, self._predict_tags(test))
        logging.info("Wrote predictions for %d sentences to %s.", len(test), path)
        return path

    def _predict_tags(self, sentences: TaggedSentences) -> list[list[str]]:
        ids = predict_tag_ids(
            self.model, self.aligner, sentences.words, self.config.eval_batch_size, self.strategy
        )
        return [[self.labels[i] for i in row] for row in ids]


def write_predictions(path: str, sentences: TaggedSentences, predicted: list[list[str]]) -> None:
    """CoNLL format, as conlleval reads it: `word gold predicted` (or `word predicted`) lines,
    a blank line after each sentence; written to a temporary file and renamed."""
    lines = []
    for index, (words, tags) in enumerate(zip(sentences.words, predicted, strict=True)):
        gold = sentences.tags[index] if sentences.tags is not None else None
        for position, (word, tag) in enumerate(zip(words, tags, strict=True)):
            word = "_".join(word.split()) or "_"  # One column, whatever the word holds.
            columns = [word, gold[position], tag] if gold is not None else [word, tag]
            lines.append(" ".join(columns))
        lines.append("")
    atomic_write_text(path, "\n".join(lines) + "\n")
