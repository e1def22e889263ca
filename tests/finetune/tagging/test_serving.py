"""The tagging SavedModel tags exactly as the Keras model does, and loads without albert_tf."""

from __future__ import annotations

import json
import os
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.finetune.driver import export_finished_run
from albert_tf.finetune.tagging.datasets import predict_tag_ids
from albert_tf.finetune.tagging.word_pieces import WordPieceAligner
from albert_tf.runtime import Runtime
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer
from tests.finetune.conftest import relabelled_run
from tests.finetune.tagging.conftest import SENTENCES, SEQ_LENGTH
from tests.fresh_process import run_without_albert_tf

pytestmark = pytest.mark.slow  # Needs the trained tagging run; exports and serves it.

# Short, unseen, empty, a zero-piece word and one sentence longer than a window.
WORDS = [words for words, _ in SENTENCES] + [
    ["café", "in", "new", "york", "\u200b", "[MASK]"],
    [],
    ("john lives in paris and mary smith went to new york " * 3).split(),
]


@pytest.fixture(scope="module")
def keras_tagger(tagging_run):
    output_dir, results = tagging_run
    task = json.load(open(os.path.join(output_dir, "task.json")))
    model = keras.saving.load_model(os.path.join(output_dir, "model.keras"))
    tokenizer = AlbertTextTokenizer(
        proto=os.path.join(output_dir, "spm.model"), do_lower_case=task["do_lower_case"]
    )
    aligner = WordPieceAligner(tokenizer, task["max_seq_length"])
    return model, aligner, task["labels"], results["saved_model"]


def padded(sentences):
    width = max(len(words) for words in sentences)
    return (
        tf.constant([words + ["<pad>"] * (width - len(words)) for words in sentences]),
        tf.constant([len(words) for words in sentences], tf.int32),
    )


def decoded(outputs, index):
    count = int(outputs["num_words"][index])
    return [tag.decode() for tag in outputs["tags"].numpy()[index][:count]]


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
def test_tag_words_equals_keras(keras_tagger):
    model, aligner, labels, export_dir = keras_tagger
    assert len(WORDS[-1]) > SEQ_LENGTH  # More pieces than one window holds.
    expected = predict_tag_ids(model, aligner, WORDS, batch_size=3)
    assert len(set(np.concatenate(expected).tolist())) >= 3, "a trivial tagger proves little"
    served = tf.saved_model.load(export_dir)
    assert set(served.signatures) == {"serving_default", "tag", "tag_words"}
    words, num_words = padded(WORDS)
    outputs = served.signatures["tag_words"](words=words, num_words=num_words)
    assert outputs["num_words"].numpy().tolist() == [len(words) for words in WORDS]
    for index, ids in enumerate(expected):
        count = len(WORDS[index])
        np.testing.assert_array_equal(outputs["tag_ids"].numpy()[index][:count], ids)
        assert (outputs["tag_ids"].numpy()[index][count:] == -1).all()
        assert decoded(outputs, index) == [labels[i] for i in ids]
        probabilities = outputs["probabilities"].numpy()[index][:count]
        np.testing.assert_allclose(probabilities.sum(axis=-1), 1.0, atol=1e-5)
        np.testing.assert_array_equal(probabilities.argmax(axis=-1), ids)


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
def test_tag_text_splits_at_whitespace(keras_tagger):
    model, aligner, labels, export_dir = keras_tagger
    texts = [" ".join(words) for words in WORDS[:4]] + ["  john\tlives  in\nparis "]
    sentences = [text.split() for text in texts]
    expected = predict_tag_ids(model, aligner, sentences, batch_size=8)
    outputs = tf.saved_model.load(export_dir).signatures["tag"](text=tf.constant(texts))
    for index, ids in enumerate(expected):
        count = len(sentences[index])
        assert [w.decode() for w in outputs["words"].numpy()[index][:count]] == sentences[index]
        assert decoded(outputs, index) == [labels[i] for i in ids]


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
def test_serving_default_logits_equal_keras(keras_tagger):
    model, aligner, _, export_dir = keras_tagger
    features, _ = aligner(tf.ragged.constant(WORDS[:3], dtype=tf.string, ragged_rank=1))
    expected = model.predict(features, verbose=0)
    logits = tf.saved_model.load(export_dir).signatures["serving_default"](**features)["logits"]
    np.testing.assert_allclose(logits.numpy(), expected, atol=1e-5, rtol=0)


_FRESH_PROCESS = textwrap.dedent(
    """
    import json, sys
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the SentencePiece ops)
    tagger = tf.saved_model.load(sys.argv[1])
    out = tagger.signatures["tag"](text=tf.constant(json.loads(sys.argv[2])))
    modules = sorted(m for m in sys.modules if m.startswith("albert_tf"))
    print("RESULT" + json.dumps({"tags": out["tags"].numpy().astype(str).tolist(),
                                 "modules": modules}))
    """
)


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
def test_loads_with_only_tensorflow_and_tensorflow_text(keras_tagger, tmp_path):
    _, _, _, export_dir = keras_tagger
    texts = ["mary smith went to paris", "the film"]
    expected = tf.saved_model.load(export_dir).signatures["tag"](text=tf.constant(texts))
    got = run_without_albert_tf(_FRESH_PROCESS, export_dir, json.dumps(texts), cwd=tmp_path)
    assert got["modules"] == []
    assert got["tags"] == expected["tags"].numpy().astype(str).tolist()


@pytest.mark.slow  # Over 5 s: builds on the tagging run.
def test_export_refuses_to_overwrite_and_checks_labels(tagging_run, tmp_path):
    output_dir, results = tagging_run
    with pytest.raises(FileExistsError, match="already exists"):
        export_finished_run(output_dir, results["saved_model"], runtime=Runtime.plain())
    mislabelled = relabelled_run(output_dir, str(tmp_path / "run"), labels=["O", "B-X"])
    with pytest.raises(ValueError, match="2 labels for a model with 5 tags"):
        export_finished_run(mislabelled, str(tmp_path / "other"), runtime=Runtime.plain())
    assert not os.path.exists(tmp_path / "other")


def test_tagging_follows_new_weights(keras_tagger):
    """The traced prediction function reads the variables: new weights, new tags."""
    model, aligner, _, _ = keras_tagger
    predict_tag_ids(model, aligner, WORDS, batch_size=3)  # Traced with the old weights.
    weights = model.get_weights()
    try:  # The classifier's bias favors one tag: every word must follow the new weights.
        model.head.bias.assign(np.eye(model.num_labels)[1] * 1e3)
        retagged = predict_tag_ids(model, aligner, WORDS, batch_size=3)
        assert all((ids == 1).all() for ids in retagged)
    finally:
        model.set_weights(weights)
