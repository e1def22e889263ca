"""Tests for albert_tf.models.embeddings."""

import keras
import numpy as np
import pytest

from albert_tf.models.embeddings import AlbertEmbeddings

ARGS = dict(vocab_size=50, embedding_size=8, hidden_size=16, max_position_embeddings=10)


def _ids(batch=2, seq=6):
    rng = np.random.default_rng(0)
    return rng.integers(0, 50, (batch, seq)).astype("int32"), rng.integers(0, 2, (batch, seq))


def test_sum_layer_norm_and_projection_match_numpy():
    layer = AlbertEmbeddings(**ARGS)
    ids, types = _ids()
    out = np.asarray(layer(ids, types))
    assert out.shape == (2, 6, 16)

    word = layer.word_embeddings.embeddings.numpy()
    pos = layer.position_embeddings.embeddings.numpy()
    typ = layer.token_type_embeddings.embeddings.numpy()
    x = word[ids] + pos[None, :6] + typ[types]
    x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-12)
    x = x * layer.layer_norm.gamma.numpy() + layer.layer_norm.beta.numpy()
    expected = x @ layer.projection.kernel.numpy() + layer.projection.bias.numpy()
    np.testing.assert_allclose(out, expected, atol=1e-5)


def test_variables_have_the_original_shapes():
    layer = AlbertEmbeddings(**ARGS)
    layer.build((None, None))
    assert tuple(layer.word_embeddings.embeddings.shape) == (50, 8)
    assert tuple(layer.position_embeddings.embeddings.shape) == (10, 8)
    assert tuple(layer.token_type_embeddings.embeddings.shape) == (2, 8)
    assert tuple(layer.projection.kernel.shape) == (8, 16)
    assert layer.projection.name == "embedding_hidden_mapping_in"


def test_no_projection_when_embedding_size_equals_hidden_size():
    layer = AlbertEmbeddings(**{**ARGS, "embedding_size": 16})
    ids, types = _ids()
    assert layer.projection is None
    assert layer(ids, types).shape == (2, 6, 16)
    assert len(layer.trainable_variables) == 5


def test_missing_type_ids_mean_segment_zero():
    layer = AlbertEmbeddings(**ARGS)
    ids, _ = _ids()
    np.testing.assert_allclose(layer(ids), layer(ids, np.zeros_like(ids)))


def test_too_long_sequence_is_a_clear_error():
    layer = AlbertEmbeddings(**ARGS)
    with pytest.raises(ValueError, match="max_position_embeddings=10"):
        layer(np.zeros((1, 11), "int32"))


def test_config_round_trip():
    layer = AlbertEmbeddings(**ARGS, dropout_rate=0.1, initializer_range=0.05, name="emb")
    clone = AlbertEmbeddings.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert isinstance(restored, AlbertEmbeddings) and restored.dropout_rate == 0.1
