"""AlbertSpanQA: [B, S, 2] float32 logits, span_loss, fit (pooler frozen), .keras round trip."""

from __future__ import annotations

import warnings

import keras
import numpy as np
import pytest

from albert_tf.config import AlbertConfig
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.span_qa import AlbertSpanQA, span_loss

CONFIG = AlbertConfig(
    vocab_size=40,
    embedding_size=8,
    hidden_size=16,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=32,
    max_position_embeddings=16,
)


def features(batch=4, length=12, seed=0):
    rng = np.random.default_rng(seed)
    ids = rng.integers(5, 40, size=[batch, length]).astype("int32")
    return {
        "input_word_ids": ids,
        "input_mask": np.ones_like(ids),
        "input_type_ids": np.zeros_like(ids),
    }


def test_logits_and_loss():
    model = AlbertSpanQA(AlbertEncoder(CONFIG))
    logits = np.asarray(model(features(), training=False))
    assert logits.shape == (4, 12, 2) and logits.dtype == np.float32
    labels = np.array([[1, 2], [0, 0], [3, 5], [11, 11]])
    expected = []
    for row, (start, end) in enumerate(labels):
        log_start = logits[row, :, 0] - np.log(np.exp(logits[row, :, 0]).sum())
        log_end = logits[row, :, 1] - np.log(np.exp(logits[row, :, 1]).sum())
        expected.append(-(log_start[start] + log_end[end]) / 2)
    np.testing.assert_allclose(np.asarray(span_loss(labels, logits)), expected, rtol=1e-5)


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_fit_learns_a_fixed_span_and_round_trips(tmp_path):
    keras.utils.set_random_seed(1)
    encoder = AlbertEncoder(CONFIG)
    model = AlbertSpanQA(encoder)
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss=span_loss)
    x = features(batch=16)
    y = np.tile([[3, 4]], [16, 1])
    pooler = encoder.pooler.get_weights()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(x, y, epochs=15, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    # A head on tokens leaves the pooler out of training: no gradient-free variables.
    assert not [w for w in caught if "Gradients do not exist" in str(w.message)]
    for was, now in zip(pooler, encoder.pooler.get_weights(), strict=True):
        np.testing.assert_array_equal(was, now)
    logits = np.asarray(model.predict(x, verbose=0))
    assert (logits[:, :, 0].argmax(1) == 3).all() and (logits[:, :, 1].argmax(1) == 4).all()
    path = str(tmp_path / "qa.keras")
    model.save(path)
    reloaded = keras.saving.load_model(path, compile=False)
    assert type(reloaded) is AlbertSpanQA
    np.testing.assert_allclose(np.asarray(reloaded.predict(x, verbose=0)), logits, atol=1e-6)


def test_rejects_non_encoders():
    with pytest.raises(TypeError, match="AlbertEncoder"):
        AlbertSpanQA(keras.layers.Dense(2))
