"""The tagging family: token classification (NER, chunks) on CoNLL-style or JSONL files.

What is its own (`albert_tf.finetune.driver` does the rest):

    inputs       CoNLL / JSONL sentences in IOB1, IOB2 or IOBES (`sentences`, `tag_schemes`);
                 the tag set is the training file's (or `--labels`)
    model        `AlbertTokenClassifier`: each word's first piece carries its tag
                 (`word_pieces`), long sentences are split into windows
    evaluation   conlleval's scores of the dev file (`dev/...`) and, beside them, of the
                 most-frequent-tag baseline (`baseline/...`); predictions/dev.conll
    predictions  predictions/test.conll (`word gold predicted`, or `word predicted`)
    serving      `tag(text)` / `tag_words(words, num_words)` (`serving.py`)

Character-level files (`--character_level`: Chinese NER, one character a line) tokenize each
character as running text (no "▁" piece before it: SentencePiece's dummy prefix is off in
the run's tokenizer), and `tag(text)` tags every character of the text.

Illustration (not run):
    config = TaggingConfig(data_dir="wnut17", train_file="wnut17train.conll",
                           dev_file="emerging.dev.conll", init_checkpoint="bundle/")
    run_tagging(config, "/tmp/wnut17", Runtime.for_machine())["dev/f1"]
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import os
from typing import Any

import keras
import numpy as np

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.finetune.distillation.losses import logits_distillation
from albert_tf.finetune.driver import run_finetuning
from albert_tf.finetune.tagging.baseline import most_frequent_tags, predict_most_frequent
from albert_tf.finetune.tagging.conlleval import conlleval
from albert_tf.finetune.tagging.datasets import predict_tag_ids, training_windows
from albert_tf.finetune.tagging.sentences import TaggedSentences, read_tagged_file
from albert_tf.finetune.tagging.serving import built_tokenizer, tagger_endpoints
from albert_tf.finetune.tagging.tag_schemes import canonical_scheme
from albert_tf.finetune.tagging.tagging_config import TaggingConfig
from albert_tf.finetune.tagging.word_pieces import IGNORE_LABEL, WordPieceAligner
from albert_tf.finetune.task_family import (
    FinetuneRun,
    FinetuneTask,
    TaskInfo,
    TaskInputs,
    TrainingData,
)
from albert_tf.models.token_classifier import AlbertTokenClassifier
from albert_tf.runtime.runtime import Runtime
from albert_tf.tokenization.model_proto import (
    joined_cjk_share,
    load_albert_model_proto,
    without_dummy_prefix,
)
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer
from albert_tf.tokenization.unspaced_scripts import has_unspaced


@dataclasses.dataclass(frozen=True)
class TaggingInfo(TaskInfo):
    """`task.json`: the tag set (in id order), its scheme, which pieces were trained, and
    whether the tokens are characters (runs from before the field: words)."""

    labels: tuple[str, ...]
    tag_scheme: str
    label_all_pieces: bool
    character_level: bool = False


@dataclasses.dataclass(frozen=True)
class TaggingInputs(TaskInputs):
    """The tagged sentences of each file the config asks for (`train` also for the baseline)."""

    train: TaggedSentences | None = None
    dev: TaggedSentences | None = None
    test: TaggedSentences | None = None


class TaggingTask(FinetuneTask, family="tagging", config_class=TaggingConfig):
    """Token classification (see the module docstring)."""

    info_class = TaggingInfo

    def read_inputs(self, saved: TaggingInfo | None) -> TaggingInputs:
        config, train = self.config, None
        # The baseline needs the training file when evaluating too.
        if config.do_train or (
            config.do_eval and os.path.isfile(config.data_path(config.train_file))
        ):
            train = self._read(config.train_file, labeled=True)
            train = train.take(config.max_train_examples or len(train))
        return TaggingInputs(
            train=train,
            dev=self._read(config.dev_file, labeled=True) if config.do_eval else None,
            test=self._read(config.test_file, labeled=None) if config.do_predict else None,
        )

    def _read(self, file_name: str, labeled: bool | None) -> TaggedSentences:
        config = self.config
        return read_tagged_file(
            config.data_path(file_name),
            config.file_format,
            config.tag_column,
            config.tag_scheme,
            labeled=labeled,
        )

    def info_values(self, inputs: TaggingInputs) -> dict[str, Any]:
        return {
            "task": "tagging",
            "labels": tuple(self.config.labels) or tag_set(inputs.train),
            "tag_scheme": canonical_scheme(self.config.tag_scheme),
        }

    def check(self, inputs: TaggingInputs, info: TaggingInfo) -> None:
        """Training and dev tags must be among the run's (a `UserError` at file and line); a
        test file's tags are only copied to the predictions, so any tag may appear there."""
        if self.config.labels and tuple(self.config.labels) != info.labels:
            raise UserError(
                f"the model was fine-tuned with tags {list(info.labels)}, not "
                f"{list(self.config.labels)}",
                where="--labels",
                fix="leave --labels out",
            )
        for sentences in (inputs.train, inputs.dev):
            if sentences is not None and sentences.tags is not None:
                sentences.tag_ids(info.labels)
        if inputs.train is not None and not info.character_level:
            warn_if_characters(inputs.train)

    def featurizer(self, spm_model_file: str, info: TaggingInfo) -> WordPieceAligner:
        proto = load_albert_model_proto(spm_model_file)
        if info.character_level:  # A character continues running text: no "▁" before it.
            if self.config.do_train and self.config.init_checkpoint:
                warn_if_joined_characters(spm_model_file, proto)
            proto = without_dummy_prefix(proto)
        tokenizer = AlbertTextTokenizer(proto=proto, do_lower_case=info.do_lower_case)
        return WordPieceAligner(tokenizer, info.max_seq_length, info.label_all_pieces)

    def build_model(self, encoder, info: TaggingInfo, dtype: str) -> AlbertTokenClassifier:
        return AlbertTokenClassifier(
            encoder,
            len(info.labels),
            dropout_rate=self.config.dropout_rate,
            labels=info.labels,
            dtype=dtype,
        )

    def training_data(self, run: FinetuneRun) -> TrainingData:
        sentences = run.inputs.train
        label_ids = sentences.tag_ids(run.info.labels)
        windows, count = training_windows(sentences.words, label_ids, run.featurizer)
        logging.info("%d training sentences -> %d windows.", len(sentences), count)
        # The head starts at the tags' prior: without it, the dominant `O` collapses a young
        # encoder (see `DenseTaskModel.start_at_label_prior`). Counted per word, also with
        # --label_all_pieces (a word's other pieces repeat its tag): a starting bias only.
        tags = np.fromiter(itertools.chain.from_iterable(label_ids), np.int64)
        counts = np.bincount(tags, minlength=len(run.info.labels))
        return TrainingData(windows, count, {"train_sentences": len(sentences)}, counts)

    def loss(self, info: TaggingInfo) -> keras.losses.Loss:
        return keras.losses.SparseCategoricalCrossentropy(
            from_logits=True, ignore_class=IGNORE_LABEL
        )

    def distillation_loss(self, info: TaggingInfo, temperature: float):
        # Every position's tag distribution: the teacher's view of each piece, not only of
        # the first pieces the labels are on.
        return logits_distillation(temperature)

    def evaluate(self, run: FinetuneRun) -> dict[str, Any]:
        train, dev = run.inputs.train, run.inputs.dev
        predicted = _predict_tags(run, dev)
        scores = conlleval(dev.tags, predicted)
        results: dict[str, Any] = {f"dev/{name}": value for name, value in scores.items()}
        results["dev/sentences"] = len(dev)
        if train is not None:
            table = most_frequent_tags(train.words, train.tags)
            baseline = conlleval(dev.tags, predict_most_frequent(dev.words, table))
            results.update({f"baseline/{name}": value for name, value in baseline.items()})
        write_predictions(run.path("predictions", "dev.conll"), dev, predicted)
        return results

    def predict(self, run: FinetuneRun) -> dict[str, Any]:
        test = run.inputs.test
        path = run.path("predictions", "test.conll")
        write_predictions(path, test, _predict_tags(run, test))
        logging.info("Wrote predictions for %d sentences to %s.", len(test), path)
        return {"predictions": [path]}

    def serving_layers(self, run: FinetuneRun) -> list[AlbertTextTokenizer]:
        return [built_tokenizer(run.featurizer)]

    def serving_signatures(self, run: FinetuneRun, predict, layers):
        return tagger_endpoints(predict, run.featurizer, run.info.labels, run.info.character_level)


def run_tagging(config: TaggingConfig, output_dir: str, runtime: Runtime) -> dict[str, Any]:
    """Fine-tunes, evaluates, predicts and exports what `config` asks in `runtime`'s speed-only
    forms (`run_finetuning`).

    Returns:
        A flat dict: `train_examples` (windows), `train_steps`, `train_seconds` (training),
        `dev/<metric>` and `baseline/<metric>` (evaluating), `predictions` (file paths),
        `saved_model` (export path).
    """
    return run_finetuning(config, output_dir, runtime)


def warn_if_characters(sentences: TaggedSentences) -> None:
    """Logs a hint when nearly every token is one character of a script written without
    spaces (a character-level file read as words: every character would get a "▁" piece)."""
    tokens = [word for words in sentences.words for word in words]
    characters = sum(len(word) == 1 and has_unspaced(word) for word in tokens)
    if tokens and characters > 0.5 * len(tokens):
        logging.warning(
            "%s: %.0f%% of the tokens are single CJK/Thai characters; is it a character-level "
            "file (--character_level)?",
            sentences.path,
            100 * characters / len(tokens),
        )


def warn_if_joined_characters(spm_model_file: str, proto: bytes) -> None:
    """Logs a hint when the tokenizer joins CJK characters into pieces: the encoder was
    pretrained on those pieces, while a character-level tagger reads one piece per character
    (ids that running text gave it far less often)."""
    share = joined_cjk_share(proto)
    if share > 0:
        logging.warning(
            "%s: %.0f%% of its CJK pieces join characters, which a character-level tagger never "
            "reads; a tokenizer trained with --cjk_character_pieces gives pretraining the "
            "tagger's ids (docs/tagging.md).",
            spm_model_file,
            100 * share,
        )


def tag_set(sentences: TaggedSentences) -> tuple[str, ...]:
    """The tags of a training file: `O` first (when present), then sorted."""
    tags = {tag for sentence in sentences.tags for tag in sentence}
    return tuple(sorted(tags, key=lambda tag: (tag != "O", tag)))


def _predict_tags(run: FinetuneRun, sentences: TaggedSentences) -> list[list[str]]:
    ids = predict_tag_ids(run.model, run.featurizer, sentences.words, run.config.eval_batch_size)
    return [[run.info.labels[i] for i in row] for row in ids]


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
