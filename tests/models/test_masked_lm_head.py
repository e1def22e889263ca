"""Tests for albert_tf.models.masked_lm_head."""

import keras
import numpy as np
import pytest

from albert_tf.models.masked_lm_head import AlbertMaskedLMHead
from albert_tf.models.positions import gather_positions

V, E, H = 30, 8, 16


def _head(dtype=None):
    table = keras.layers.Embedding(V, E, dtype=dtype)
    table.build((None,))
    return AlbertMaskedLMHead(V, E, token_embedding=table, dtype=dtype), table


def _inputs():
    rng = np.random.default_rng(0)
    sequence = rng.normal(size=(2, 6, H)).astype("float32")
    positions = np.array([[0, 3, 5], [1, 1, 4]], "int64")
    return sequence, positions


def test_gather_positions():
    sequence, positions = _inputs()
    expected = np.stack([sequence[b, positions[b]] for b in range(2)])
    np.testing.assert_array_equal(gather_positions(sequence, positions), expected)


def test_logits_match_numpy_with_tied_embeddings():
    head, table = _head()
    sequence, positions = _inputs()
    logits = np.asarray(head(sequence, positions))
    assert logits.shape == (2, 3, V)

    x = np.stack([sequence[b, positions[b]] for b in range(2)])
    x = x @ head.dense.kernel.numpy() + head.dense.bias.numpy()
    x = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-12)
    x = x * head.layer_norm.gamma.numpy() + head.layer_norm.beta.numpy()
    head.output_bias.assign(np.arange(V, dtype="float32"))
    expected = x @ table.embeddings.numpy().T + np.arange(V)
    np.testing.assert_allclose(head(sequence, positions), expected, atol=1e-4)
    assert not np.allclose(logits, expected)  # the bias change is visible


def test_output_projection_is_the_embedding_variable():
    head, table = _head()
    sequence, positions = _inputs()
    before = np.asarray(head(sequence, positions))
    table.embeddings.assign(table.embeddings.numpy() * 2.0)
    assert not np.allclose(before, head(sequence, positions))
    assert any(v is table.embeddings for v in head.trainable_variables)
    assert tuple(head.dense.kernel.shape) == (H, E)
    assert tuple(head.output_bias.shape) == (V,)


def test_logits_are_float32_under_mixed_precision():
    head, _ = _head(dtype="mixed_bfloat16")
    sequence, positions = _inputs()
    assert keras.backend.standardize_dtype(head(sequence, positions).dtype) == "float32"


def test_missing_embedding_is_a_clear_error():
    head = AlbertMaskedLMHead(V, E)
    with pytest.raises(ValueError, match="token_embedding"):
        head(*_inputs())


def test_config_round_trip():
    head, _ = _head()
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(head))
    assert isinstance(clone, AlbertMaskedLMHead)
    assert clone.get_config() == head.get_config()
    assert "token_embedding" not in head.get_config()
