"""Tests for albert_tf.models.transformer_block."""

import keras
import numpy as np

from albert_tf.models.attention import AlbertAttention
from albert_tf.models.transformer_block import AlbertTransformerBlock

ARGS = dict(hidden_size=16, num_attention_heads=2, intermediate_size=32)


def _inputs():
    x = np.random.default_rng(0).normal(size=(2, 4, 16)).astype("float32")
    return x, np.ones((2, 4), "int32")


def test_is_attention_then_feed_forward():
    block = AlbertTransformerBlock(**ARGS)
    x, mask = _inputs()
    expected = block.ffn(block.attention(x, mask))
    np.testing.assert_allclose(block(x, mask), expected, atol=1e-6)
    assert len(block.trainable_variables) == 16


def test_injected_attention_is_shared_not_copied():
    attention = AlbertAttention(16, 2)
    first = AlbertTransformerBlock(**ARGS, attention_layer=attention)
    second = AlbertTransformerBlock(**ARGS, attention_layer=attention)
    x, mask = _inputs()
    first(x, mask), second(x, mask)
    assert first.attention is second.attention is attention
    assert first.ffn is not second.ffn
    shared = {id(v) for v in first.trainable_variables} & {
        id(v) for v in second.trainable_variables
    }
    assert len(shared) == 10  # the attention's variables


def test_config_round_trip_with_and_without_injected_layers():
    plain = AlbertTransformerBlock(**ARGS, hidden_act="relu", hidden_dropout_prob=0.1)
    clone = AlbertTransformerBlock.from_config(plain.get_config())
    assert clone.get_config() == plain.get_config()
    assert plain.get_config()["attention_layer"] is None

    injected = AlbertTransformerBlock(**ARGS, attention_layer=AlbertAttention(16, 2, name="att"))
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(injected))
    assert isinstance(restored.attention, AlbertAttention)
    assert restored.attention.name == "att"
    assert restored.get_config() == injected.get_config()
