"""Hostile text batches every raw-text serving signature must take without failing.

Shared by the pretraining-export and classifier-export tests: empty strings, a
250,000-character string, invalid UTF-8, NUL bytes, and a zero-size batch.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

LONG = ("valkyria chronicles " * 12_500)[:250_000]
HOSTILE_BATCHES: dict[str, list] = {
    "empty strings": ["", "   "],
    "250,000 characters": [LONG, "short"],
    "invalid UTF-8": [b"\xff\xfe broken \xc3\x28 bytes", b"\x80"],
    "NUL characters": ["before\x00after", "\x00"],
    "zero-size batch": [],
}


def hostile_batch(name: str) -> tf.Tensor:
    """The batch `name` as a string tensor (shape [0] for the zero-size batch)."""
    values = HOSTILE_BATCHES[name]
    return tf.constant(values, dtype=tf.string, shape=[len(values)])


def assert_serves(signature, batch: tf.Tensor, **other_inputs: tf.Tensor) -> None:
    """Calls `signature` with the text inputs; every output has one finite row per text."""
    outputs = signature(**other_inputs)
    size = int(batch.shape[0])
    assert outputs, "no outputs"
    for name, value in outputs.items():
        assert value.shape[0] == size, (name, value.shape, size)
        if value.dtype.is_floating:
            assert np.isfinite(value.numpy()).all(), name
