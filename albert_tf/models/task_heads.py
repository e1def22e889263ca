"""The parts every task model builds the same way around an `AlbertEncoder`.

Classification, span QA, multiple choice and tagging differ in which encoder output they read
and how they shape the logits; the encoder argument, the id inputs and the Dense head's
initializer (the encoder's `initializer_range`, as in the original) are the same for all.
"""

from __future__ import annotations

from typing import Any

import keras

from albert_tf.models.encoder import INPUT_NAMES, AlbertEncoder


def task_encoder(encoder: AlbertEncoder | dict[str, Any], owner: str) -> AlbertEncoder:
    """`encoder`, deserialized first when it is a config (as `from_config` passes it)."""
    if isinstance(encoder, dict):
        encoder = keras.saving.deserialize_keras_object(encoder)
    if not isinstance(encoder, AlbertEncoder):
        raise TypeError(f"{owner}: encoder must be an AlbertEncoder, got {encoder!r}.")
    return encoder


def id_inputs(shape: tuple = (None,)) -> dict[str, keras.KerasTensor]:
    """The encoder's int32 inputs by name, each of `shape` (without the batch axis)."""
    return {name: keras.Input(shape=shape, dtype="int32", name=name) for name in INPUT_NAMES}


def dense_head(units: int, encoder: AlbertEncoder, dtype: Any, name: str) -> keras.layers.Dense:
    """A Dense output layer initialized like the encoder's own weights.

    Example:
    >>> from albert_tf.config import AlbertConfig
    >>> encoder = AlbertEncoder(AlbertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=1,
    ...     num_attention_heads=2, intermediate_size=16, embedding_size=8))
    >>> dense_head(3, encoder, None, "classifier").units
    3
    """
    initializer = keras.initializers.TruncatedNormal(stddev=encoder.config.initializer_range)
    return keras.layers.Dense(units, kernel_initializer=initializer, dtype=dtype, name=name)
