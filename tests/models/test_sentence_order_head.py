"""Tests for albert_tf.models.sentence_order_head."""

import keras
import numpy as np

from albert_tf.models.sentence_order_head import AlbertSentenceOrderHead


def test_logits_use_output_weights_stored_out_in():
    head = AlbertSentenceOrderHead(initializer_range=0.5)
    pooled = np.random.default_rng(0).normal(size=(3, 16)).astype("float32")
    head.build((None, 16))
    head.output_bias.assign([0.25, -1.0])
    logits = head(pooled)
    assert tuple(head.output_weights.shape) == (2, 16)
    expected = pooled @ head.output_weights.numpy().T + np.array([0.25, -1.0])
    np.testing.assert_allclose(logits, expected, atol=1e-5)


def test_float32_logits_under_float16():
    head = AlbertSentenceOrderHead(dtype="mixed_float16")
    logits = head(np.ones((2, 8), "float16"))
    assert keras.backend.standardize_dtype(logits.dtype) == "float32"


def test_config_round_trip():
    head = AlbertSentenceOrderHead(num_classes=3, initializer_range=0.1)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(head))
    assert clone.get_config() == head.get_config()
    assert clone.num_classes == 3
