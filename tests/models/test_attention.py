"""Tests for albert_tf.models.attention."""

import keras
import numpy as np
import pytest

from albert_tf.models.attention import AlbertAttention

H, N = 16, 4


def _layer_norm(x, layer):
    x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-12)
    return x * layer.gamma.numpy() + layer.beta.numpy()


def _dense(x, layer):
    return x @ layer.kernel.numpy() + layer.bias.numpy()


def _reference(layer, x, mask):
    """BERT self-attention written out in numpy, including the -10000 adder."""
    batch, seq, _ = x.shape

    def heads(t):
        return t.reshape(batch, seq, N, H // N).transpose(0, 2, 1, 3)

    q, k, v = (heads(_dense(x, d)) for d in (layer.query, layer.key, layer.value))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(H // N)
    scores = scores + (1.0 - mask[:, None, None, :]) * -10000.0
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs = probs / probs.sum(-1, keepdims=True)
    context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, H)
    return _layer_norm(x + _dense(context, layer.output_dense), layer.layer_norm)


def _inputs():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 5, H)).astype("float32")
    mask = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], "float32")
    return x, mask


def test_matches_numpy_reference():
    layer = AlbertAttention(H, N)
    x, mask = _inputs()
    np.testing.assert_allclose(layer(x, mask), _reference(layer, x, mask), atol=1e-5)


def test_query_positions_give_the_full_output_at_those_rows():
    layer = AlbertAttention(H, N)
    x, mask = _inputs()
    positions = np.array([[0, 4, 2], [0, 1, 1]], "int32")
    full = np.asarray(layer(x, mask))
    subset = np.asarray(layer(x, mask, positions))
    assert subset.shape == (2, 3, H)
    np.testing.assert_allclose(subset, np.take_along_axis(full, positions[..., None], 1), atol=1e-5)


def test_padded_keys_do_not_affect_real_positions():
    layer = AlbertAttention(H, N)
    x, mask = _inputs()
    changed = x.copy()
    changed[1, 3:] += 5.0  # padded positions of row 1
    before, after = np.asarray(layer(x, mask)), np.asarray(layer(changed, mask))
    np.testing.assert_allclose(before[:, :3], after[:, :3], atol=1e-5)
    assert np.abs(before[0] - after[0]).max() == 0.0


def test_float16_compute_with_mask_is_finite():
    layer = AlbertAttention(H, N, dtype="mixed_float16")
    x, mask = _inputs()
    out = layer(x, mask)
    assert keras.backend.standardize_dtype(out.dtype) == "float16"
    assert np.isfinite(np.asarray(out, "float32")).all()


def test_kernels_are_in_out():
    layer = AlbertAttention(H, N)
    layer.build((None, None, H))
    names = ("query", "key", "value", "output_dense")
    for name in names:
        assert tuple(getattr(layer, name).kernel.shape) == (H, H)
    assert len(layer.trainable_variables) == 10


def test_hidden_size_must_divide_into_heads():
    with pytest.raises(ValueError, match="divisible"):
        AlbertAttention(10, 4)


def test_config_round_trip():
    layer = AlbertAttention(H, N, attention_probs_dropout_prob=0.1, hidden_dropout_prob=0.2)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert isinstance(clone, AlbertAttention)
    assert clone.get_config() == layer.get_config()
