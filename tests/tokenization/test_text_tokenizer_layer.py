"""AlbertTextTokenizer: the in-graph tokenizer as a Keras layer (tf.data, SavedModel, .keras)."""

import keras
import pytest
import tensorflow as tf

from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer

TEXTS = ["The [MASK] sat on Ångström's mat, 1,725 times.", "", "  日本  ", "[CLS] a [SEP]"]


@pytest.fixture(scope="module")
def layer(small_model_file):
    return AlbertTextTokenizer(proto=small_model_file)


def test_matches_python_tokenizer(layer, tokenizer):
    assert layer(tf.constant(TEXTS)).to_list() == [tokenizer.encode(t) for t in TEXTS]
    assert layer.vocab_size == tokenizer.vocab_size


def test_accepts_model_bytes(tokenizer):
    layer = AlbertTextTokenizer(proto=tokenizer.serialized_model_proto(), do_lower_case=True)
    assert layer(tf.constant(TEXTS)).to_list() == [tokenizer.encode(t) for t in TEXTS]


def test_inside_tf_data(layer, tokenizer):
    dataset = tf.data.Dataset.from_tensor_slices(TEXTS).batch(2).map(layer)
    rows = [row for batch in dataset for row in batch.to_list()]
    assert rows == [tokenizer.encode(t) for t in TEXTS]


def test_saved_model_roundtrip(layer, tokenizer, tmp_path, small_model_file):
    module = tf.Module()
    module.tokenizer = layer
    module.tokenize = tf.function(
        lambda texts: layer(texts).to_tensor(),
        input_signature=[tf.TensorSpec([None], tf.string)],
    )
    tf.saved_model.save(module, str(tmp_path / "saved"))
    restored = tf.saved_model.load(str(tmp_path / "saved"))
    padded = restored.tokenize(tf.constant(TEXTS)).numpy().tolist()
    expected = [tokenizer.encode(t) for t in TEXTS]
    assert [row[: len(ids)] for row, ids in zip(padded, expected, strict=True)] == expected


def test_keras_archive_carries_the_model(layer, tokenizer, tmp_path):
    inputs = keras.Input(shape=(), dtype="string")
    model = keras.Model(inputs, layer(inputs))
    path = str(tmp_path / "tokenizer.keras")
    model.save(path)
    restored = keras.saving.load_model(path).layers[-1]
    assert isinstance(restored, AlbertTextTokenizer)
    assert restored.get_config()["do_lower_case"] is True
    assert restored(tf.constant(TEXTS)).to_list() == [tokenizer.encode(t) for t in TEXTS]


def test_unset_layer_errors_clearly():
    layer = AlbertTextTokenizer.from_config({"proto": None, "do_lower_case": False})
    with pytest.raises(ValueError, match="no SentencePiece model"):
        layer(tf.constant(["x"]))


def test_bad_model_is_rejected(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.model"):
        AlbertTextTokenizer(proto=str(tmp_path / "missing.model"))


def test_survives_seeding_after_it_was_built(small_model_file, tiny_model_file, tokenizer):
    # Seeding clears TensorFlow's eager kernel cache; tensorflow-text's own resource died with it.
    layer = AlbertTextTokenizer(proto=small_model_file)
    other = AlbertTextTokenizer(proto=tiny_model_file)  # Another model: another shared resource.
    expected_other = other(tf.constant(TEXTS)).to_list()
    keras.utils.set_random_seed(3)
    assert layer(tf.constant(TEXTS)).to_list() == [tokenizer.encode(t) for t in TEXTS]
    assert other(tf.constant(TEXTS)).to_list() == expected_other != layer(TEXTS).to_list()
