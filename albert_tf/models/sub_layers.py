"""The Dense and LayerNorm sub-layers of ALBERT's layers, initialized as the original.

Every kernel and embedding table of the original starts from a truncated normal of standard
deviation `initializer_range` (biases from zeros), and every LayerNorm has its epsilon: one
home for both, so that a layer cannot drift from the others.
"""

from __future__ import annotations

from typing import Any

import keras

from albert_tf.config import LAYER_NORM_EPSILON


def truncated_normal(initializer_range: float) -> keras.initializers.Initializer:
    """The original's initializer of kernels and embedding tables."""
    return keras.initializers.TruncatedNormal(stddev=initializer_range)


def dense(
    units: int,
    initializer_range: float,
    dtype: Any,
    name: str,
    activation: str | None = None,
) -> keras.layers.Dense:
    """A Dense layer with the original's kernel initializer."""
    return keras.layers.Dense(
        units,
        activation=activation,
        kernel_initializer=truncated_normal(initializer_range),
        dtype=dtype,
        name=name,
    )


def layer_norm(dtype: Any, name: str = "layer_norm") -> keras.layers.LayerNormalization:
    """A LayerNorm with the original's epsilon."""
    return keras.layers.LayerNormalization(epsilon=LAYER_NORM_EPSILON, dtype=dtype, name=name)
