"""Chinese: People's Daily NER read as character-level CoNLL, each character tokenized as
running text; a fine-tuned character tagger served from its SavedModel with only tensorflow
and tensorflow_text."""

from __future__ import annotations

import json
import os
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.finetune.tagging.conlleval import conlleval
from albert_tf.finetune.tagging.datasets import predict_tag_ids
from albert_tf.finetune.tagging.sentences import read_tagged_file
from albert_tf.finetune.tagging.tagging_config import TaggingConfig
from albert_tf.finetune.tagging.tagging_task import (
    TaggingInfo,
    TaggingTask,
    tag_set,
    warn_if_characters,
)
from albert_tf.finetune.tagging.word_pieces import IGNORE_LABEL, gather_word_logits
from tests.conftest import CHINESE_DATA, CHINESE_VOCAB_SIZE, TINY_ALBERT
from tests.finetune.conftest import finished_run, write_lines
from tests.fresh_process import run_without_albert_tf

SEQ_LENGTH = 32


def _sentences(path, count: int) -> list[str]:
    """The first `count` sentences of a character-per-line file, as CoNLL lines."""
    lines, sentences = [], 0
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            lines.append(line.rstrip("\n"))
            sentences += not line.strip()
            if sentences == count:
                return lines
    return lines


@pytest.fixture(scope="module")
def ner_dir(tmp_path_factory) -> str:
    directory = tmp_path_factory.mktemp("peopledaily")
    write_lines(directory / "train.txt", _sentences(CHINESE_DATA / "peopledaily_ner/train.txt", 24))
    write_lines(directory / "dev.txt", _sentences(CHINESE_DATA / "peopledaily_ner/dev.txt", 8))
    return str(directory)


def _info(character_level: bool, labels=("O", "B-LOC")) -> TaggingInfo:
    return TaggingInfo("tagging", SEQ_LENGTH, True, labels, "iob2", False, character_level)


def test_character_level_files_are_tokenized_as_running_text(ner_dir, chinese_model_file, caplog):
    sentences = read_tagged_file(os.path.join(ner_dir, "dev.txt"))
    assert all(len(word) == 1 for words in sentences.words for word in words)
    words = tf.ragged.constant(sentences.words, dtype=tf.string, ragged_rank=1)
    task = TaggingTask(TaggingConfig(data_dir=ner_dir))
    pieces, windows = {}, {}
    for level in (True, False):
        mask = task.featurizer(chinese_model_file, _info(level))(words)[0]["input_mask"].numpy()
        pieces[level], windows[level] = int(mask.sum()), len(mask)
    # One piece a character (+ [CLS] and [SEP] a window), as in running text; read as
    # words, most characters get a "▁" piece too.
    assert pieces[True] == sentences.num_words + 2 * windows[True]
    assert pieces[False] - 2 * windows[False] > 1.5 * sentences.num_words
    warn_if_characters(sentences)
    assert "is it a character-level file (--character_level)?" in caplog.text
    assert "join characters" not in caplog.text
    # Fine-tuning an encoder pretrained on pieces that join characters: a hint to retrain
    # the tokenizer with --cjk_character_pieces.
    fine_tuning = TaggingTask(TaggingConfig(data_dir=ner_dir, init_checkpoint="encoder.keras"))
    fine_tuning.featurizer(chinese_model_file, _info(True))
    assert "of its CJK pieces join characters" in caplog.text


class _PieceIdTagger(keras.Model):
    """A stand-in tagger whose logits at each position one-hot encode (piece id mod C)."""

    def __init__(self, num_labels: int):
        super().__init__(name="piece_id_tagger")
        self.num_labels = num_labels

    def call(self, features, training=None):
        return tf.one_hot(features["input_word_ids"] % self.num_labels, self.num_labels)


def test_character_labels_and_predictions_sit_on_each_characters_piece(ner_dir, chinese_model_file):
    """People's Daily dev sentences through the character-level featurizer: each character's
    label lies on its own piece, the prediction path reads each character's own position, and
    the gold tags fed back as logits score F1 = 100 (windows included: SEQ_LENGTH is short)."""
    dev = read_tagged_file(os.path.join(ner_dir, "dev.txt"))
    labels = tag_set(dev)
    aligner = TaggingTask(TaggingConfig(data_dir=ner_dir)).featurizer(
        chinese_model_file, _info(True, labels)
    )
    words = tf.ragged.constant(dev.words, dtype=tf.string, ragged_rank=1)
    label_ids = tf.ragged.constant(dev.tag_ids(labels), dtype=tf.int32, ragged_rank=1)
    features, alignment = aligner(words, label_ids)
    assert features["input_word_ids"].shape[0] > len(dev.words)  # Some sentences are split.
    pieces = aligner.tokenizer(words.flat_values)
    counts = pieces.row_lengths().numpy()
    assert counts.min() == 1 and (counts == 1).mean() > 0.98  # One piece a character.
    piece_ids = tf.gather(pieces.flat_values, pieces.row_starts()).numpy()  # The first ones.
    at = np.stack([alignment["word_window"], alignment["word_position"]], axis=1)
    np.testing.assert_array_equal(tf.gather_nd(features["input_word_ids"], at), piece_ids)
    np.testing.assert_array_equal(tf.gather_nd(features["label_ids"], at), label_ids.flat_values)
    assert (features["label_ids"].numpy() != IGNORE_LABEL).sum() == dev.num_words
    # Gold as logits, read back where evaluation reads predictions: a perfect score.
    gold_logits = tf.one_hot(tf.maximum(features["label_ids"], 0), len(labels))
    oracle = tf.ragged.map_flat_values(tf.argmax, gather_word_logits(gold_logits, alignment), -1)
    assert conlleval(dev.tags, [[labels[i] for i in row] for row in oracle.to_list()])["f1"] == 1.0
    # The evaluation path (batches, cut windows) gives each character its own piece's logits.
    predicted = predict_tag_ids(_PieceIdTagger(len(labels)), aligner, dev.words, batch_size=3)
    np.testing.assert_array_equal(np.concatenate(predicted), piece_ids % len(labels))


_FRESH_PROCESS = textwrap.dedent(
    """
    import json, sys
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the SentencePiece ops)
    tagger = tf.saved_model.load(sys.argv[1])
    tags = tagger.signatures["tag"](text=tf.constant(json.loads(sys.argv[2])))
    text = lambda values: [[v.decode("utf-8") for v in row] for row in values.numpy()]
    print("RESULT" + json.dumps({
        "words": text(tags["words"]),
        "tags": text(tags["tags"]),
        "modules": sorted(m for m in sys.modules if m.startswith("albert_tf")),
    }))
    """
)


@pytest.fixture(scope="module")
def chinese_tagger(tmp_path_factory, ner_dir, chinese_model_file):
    """A character-level tagger fine-tuned on People's Daily, exported by its run, and the
    run's own predictions of the dev sentences (the Keras model's tags)."""
    config_file = tmp_path_factory.mktemp("zh_config") / "albert_config.json"
    AlbertConfig(**{**TINY_ALBERT, "vocab_size": CHINESE_VOCAB_SIZE}).to_json_file(config_file)
    tagging = TaggingConfig(
        data_dir=ner_dir,
        albert_config_file=str(config_file),
        spm_model_file=chinese_model_file,
        max_seq_length=SEQ_LENGTH,
        train_batch_size=8,
        learning_rate=3e-3,
        num_train_epochs=1,
        character_level=True,
        do_eval=False,
        do_predict=True,
        test_file="dev.txt",
        export_saved_model=True,
    )
    return finished_run(tmp_path_factory, tagging, "zh_tagger")


@pytest.mark.slow  # Over 5 s: a fine-tuning run, its export and a fresh TensorFlow process.
def test_a_chinese_tagger_is_served_with_only_tensorflow_and_tensorflow_text(
    chinese_tagger, ner_dir, tmp_path
):
    tagger_dir, results = chinese_tagger
    assert json.load(open(os.path.join(tagger_dir, "task.json")))["character_level"] is True
    dev = read_tagged_file(os.path.join(ner_dir, "dev.txt"))
    predicted = read_tagged_file(results["predictions"][0], tag_column=2)  # word gold predicted
    texts = ["".join(words) for words in dev.words] + ["新华社 北京\t电。", ""]
    served = run_without_albert_tf(
        _FRESH_PROCESS, results["saved_model"], json.dumps(texts), cwd=tmp_path
    )
    assert served["modules"] == []
    # Every character but whitespace is tagged, punctuation too.
    characters = [list("".join(text.split())) for text in texts]
    assert [row[: len(chars)] for row, chars in zip(served["words"], characters, strict=True)] == (
        characters
    )
    # The served tags of the dev sentences are the fine-tuned Keras model's.
    for row, tags in zip(served["tags"], predicted.tags, strict=False):
        assert row[: len(tags)] == tags
