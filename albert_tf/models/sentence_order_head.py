"""`AlbertSentenceOrderHead`: sentence-order (SOP) logits from the pooled output."""

from __future__ import annotations

import keras
from keras import ops

from albert_tf.layer_config import ArgumentsConfig, store_arguments
from albert_tf.models.sub_layers import truncated_normal


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertSentenceOrderHead(ArgumentsConfig, keras.layers.Layer):
    """logits = pooled @ output_weights^T + output_bias, in float32.

    Variables: `output_weights` [num_classes, H] (stored [out, in] like the
    original `cls/seq_relationship/output_weights`), `output_bias` [num_classes].

    Example:
    >>> head = AlbertSentenceOrderHead()
    >>> tuple(head(keras.ops.ones((4, 16))).shape)
    (4, 2)
    """

    def __init__(self, num_classes: int = 2, initializer_range: float = 0.02, **kwargs):
        # Variables are read in float32 (no autocast): the logits are float32.
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        store_arguments(self, locals())

    def build(self, pooled_output_shape):
        self.output_weights = self.add_weight(
            shape=(self.num_classes, pooled_output_shape[-1]),
            initializer=truncated_normal(self.initializer_range),
            name="output_weights",
        )
        self.output_bias = self.add_weight(
            shape=(self.num_classes,), initializer="zeros", name="output_bias"
        )
        self.built = True

    def call(self, pooled_output):
        weights = ops.cast(self.output_weights, "float32")
        logits = ops.matmul(ops.cast(pooled_output, "float32"), ops.transpose(weights))
        return logits + ops.cast(self.output_bias, "float32")

    def compute_output_shape(self, pooled_output_shape):
        return (*pooled_output_shape[:-1], self.num_classes)
