"""Chinese: People's Daily NER read as character-level CoNLL, each character tokenized as
running text; a fine-tuned character tagger and a Chinese text classifier, both served from
SavedModels with only tensorflow and tensorflow_text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.finetune.classification.serving import export_classifier
from albert_tf.finetune.tagging.datasets import predict_tag_ids
from albert_tf.finetune.tagging.sentences import read_tagged_file
from albert_tf.finetune.tagging.tagging_config import TaggingConfig
from albert_tf.finetune.tagging.task import TaggingInfo, TaggingTask, warn_if_characters
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests.conftest import CHINESE_DATA, CHINESE_VOCAB_SIZE, TINY_ALBERT
from tests.finetune.conftest import finished_run, write_lines

SEQ_LENGTH = 32
TEXTS = ["人民日报记者在北京报道。", "这家酒店的服务很好，房间也干净！", ""]


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


def _info(character_level: bool) -> TaggingInfo:
    return TaggingInfo("tagging", SEQ_LENGTH, True, ("O", "B-LOC"), "iob2", False, character_level)


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


_FRESH_PROCESS = textwrap.dedent(
    """
    import json, sys
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the SentencePiece ops)
    texts = tf.constant(json.loads(sys.argv[3]))
    tags = tf.saved_model.load(sys.argv[1]).signatures["tag"](text=texts)
    classes = tf.saved_model.load(sys.argv[2]).signatures["classify_text"](text_a=texts)
    text = lambda values: [[v.decode("utf-8") for v in row] for row in values.numpy()]
    print("RESULT" + json.dumps({
        "words": text(tags["words"]),
        "tags": text(tags["tags"]),
        "logits": classes["logits"].numpy().tolist(),
        "modules": sorted(m for m in sys.modules if m.startswith("albert_tf")),
    }))
    """
)


@pytest.fixture(scope="module")
def chinese_exports(tmp_path_factory, ner_dir, chinese_model_file):
    """A character-level tagger fine-tuned on People's Daily (exported by the run) and a
    sentiment classifier over the Chinese tokenizer (random weights, exported directly)."""
    config_file = tmp_path_factory.mktemp("zh_config") / "albert_config.json"
    config = AlbertConfig(**{**TINY_ALBERT, "vocab_size": CHINESE_VOCAB_SIZE})
    config.to_json_file(config_file)
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
        do_predict=False,
        export_saved_model=True,
    )
    tagger_dir, results = finished_run(tmp_path_factory, tagging, "zh_tagger")
    classifier = AlbertClassifier(AlbertEncoder(config), num_outputs=2)
    features = AlbertTextFeatures(chinese_model_file, seq_length=SEQ_LENGTH)
    classifier_dir = str(tmp_path_factory.mktemp("zh_classifier") / "export")
    export_classifier(classifier_dir, classifier, features, labels=("0", "1"))
    logits = classifier(features(tf.constant(TEXTS)), training=False).numpy()
    return tagger_dir, results, classifier_dir, logits


@pytest.mark.slow  # Over 5 s: a fine-tuning run, two exports and a fresh TensorFlow process.
def test_chinese_models_are_served_with_only_tensorflow_and_tensorflow_text(
    chinese_exports, tmp_path
):
    tagger_dir, results, classifier_dir, logits = chinese_exports
    assert results["train_examples"] >= 24
    assert json.load(open(os.path.join(tagger_dir, "task.json")))["character_level"] is True
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, "-I", "-c", _FRESH_PROCESS, results["saved_model"]]
    result = subprocess.run(
        [*command, classifier_dir, json.dumps(TEXTS)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("RESULT"))
    served = json.loads(line[len("RESULT") :])
    assert served["modules"] == []
    characters = [list(text) for text in TEXTS]  # every character is tagged, punctuation too
    assert [row[: len(text)] for row, text in zip(served["words"], characters, strict=True)] == (
        characters
    )
    # The same tags as the fine-tuned Keras model gives the characters (the run's predictions).
    from albert_tf.finetune.driver import load_finetuned_model

    model = load_finetuned_model(tagger_dir)
    task = TaggingTask(TaggingConfig(data_dir=tagger_dir))
    info = task.info_class.from_json(json.load(open(os.path.join(tagger_dir, "task.json"))))
    aligner = task.featurizer(os.path.join(tagger_dir, "spm.model"), info)
    expected = predict_tag_ids(model, aligner, characters, batch_size=4)
    for row, ids, text in zip(served["tags"], expected, characters, strict=True):
        assert row[: len(text)] == [info.labels[i] for i in ids]
    np.testing.assert_allclose(served["logits"], logits, atol=1e-5)
