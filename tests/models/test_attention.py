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


def _count_calls(monkeypatch, *layers) -> list:
    calls = []
    for layer in layers:
        counted = lambda x, call=layer.call, **kw: calls.append(1) or call(x, **kw)  # noqa: E731
        monkeypatch.setattr(layer, "call", counted)
    return calls


def _loss_and_gradients(variables, forward):
    import tensorflow as tf

    with tf.GradientTape() as tape:
        out = forward()
        loss = tf.reduce_sum(out * tf.range(1.0, 1.0 + out.shape[-1]))
    return out, tape.gradient(loss, variables)


def _assert_same(got, want):
    # Folded kernels add in another order: float32 rounding, relative to values up to ~100.
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
    for g, w in zip(got[1], want[1], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("query_row", [0, 3])
def test_one_query_row_forms_no_keys_or_values(monkeypatch, query_row):
    """Keys and values are folded into the one query; values and gradients stay the full ones."""
    layer = AlbertAttention(H, N)
    x, mask = _inputs()
    positions = np.full((2, 1), query_row, "int32")
    layer(x, mask)
    variables = layer.trainable_variables
    want = _loss_and_gradients(variables, lambda: layer(x, mask)[:, query_row : query_row + 1])
    calls = _count_calls(monkeypatch, layer.key, layer.value)
    got = _loss_and_gradients(variables, lambda: layer(x, mask, positions))
    assert not calls
    _assert_same(got, want)


def test_one_query_row_with_dropped_probabilities(monkeypatch):
    """Dropped probabilities no longer sum to 1: the value bias is weighted by their sum."""
    layer = AlbertAttention(H, N, attention_probs_dropout_prob=0.5)
    x, mask = _inputs()
    keep = np.array([2.0, 0.0, 2.0, 2.0, 0.0], "float32")  # the same "dropout" on both paths
    monkeypatch.setattr(layer.probs_dropout, "call", lambda probs, training=None: probs * keep)
    full = layer(x, mask, training=True)[:, :1]
    one = layer(x, mask, np.zeros((2, 1), "int32"), training=True)
    np.testing.assert_allclose(one, full, atol=1e-5)


@pytest.mark.parametrize("positions", [None, np.array([[0, 4, 2], [0, 1, 1]], "int32")])
def test_input_projection_folds_into_the_query_key_value_kernels(monkeypatch, positions):
    """E-wide embeddings and their projection give the projected input's output."""
    layer = AlbertAttention(H, N)
    projection = keras.layers.Dense(H, bias_initializer="random_normal")
    embedded = np.random.default_rng(2).normal(size=(2, 5, 8)).astype("float32")
    _, mask = _inputs()
    layer(projection(embedded), mask)
    variables = layer.trainable_variables + projection.trainable_variables
    want = _loss_and_gradients(variables, lambda: layer(projection(embedded), mask, positions))
    calls = _count_calls(monkeypatch, layer.key, layer.value)
    got = _loss_and_gradients(
        variables, lambda: layer(embedded, mask, positions, input_projection=projection)
    )
    assert not calls  # keys and values came from the E-wide embeddings
    _assert_same(got, want)
