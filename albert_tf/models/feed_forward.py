"""`AlbertFeedForward`: post-LN position-wise feed-forward sub-layer."""

from __future__ import annotations

import keras
from keras import ops

from albert_tf.config import LAYER_NORM_EPSILON
from albert_tf.models.activations import activation_math
from albert_tf.models.forms import bias_activation, layer_norm_of_sum


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertFeedForward(keras.layers.Layer):
    """Dense H -> I, activation, Dense I -> H, dropout, residual and LayerNorm.

    Variables (kernels are [in, out]):
      * `intermediate`: `.kernel` [H, I], `.bias` [I] (original `ffn_1/intermediate/dense`),
      * `output_dense`: `.kernel` [I, H], `.bias` [H]
        (original `ffn_1/intermediate/output/dense`),
      * `layer_norm`: `.gamma`, `.beta` [H] (original `LayerNorm_1`).

    Example:
    >>> layer = AlbertFeedForward(hidden_size=16, intermediate_size=64)
    >>> tuple(layer(keras.ops.ones((2, 5, 16))).shape)
    (2, 5, 16)
    """

    def __init__(
        self,
        hidden_size: int,
        intermediate_size: int,
        hidden_act: str = "gelu",
        hidden_dropout_prob: float = 0.0,
        initializer_range: float = 0.02,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.hidden_act = hidden_act
        self.hidden_dropout_prob = hidden_dropout_prob
        self.initializer_range = initializer_range
        activation_math(hidden_act)  # Fails early on an unknown name.

        def dense(units: int, name: str) -> keras.layers.Dense:
            return keras.layers.Dense(
                units,
                kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range),
                dtype=self.dtype_policy,
                name=name,
            )

        self.intermediate = dense(intermediate_size, "intermediate")
        self.output_dense = dense(hidden_size, "output_dense")
        self.layer_norm = keras.layers.LayerNormalization(
            epsilon=LAYER_NORM_EPSILON, dtype=self.dtype_policy, name="layer_norm"
        )
        self.output_dropout = keras.layers.Dropout(
            hidden_dropout_prob, dtype=self.dtype_policy, name="output_dropout"
        )

    def build(self, hidden_states_shape):
        self.intermediate.build((None, None, self.hidden_size))
        self.output_dense.build((None, None, self.intermediate_size))
        self.layer_norm.build((None, None, self.hidden_size))
        self.built = True

    def call(self, hidden_states, training=None):
        # The Dense layers' biases are added with the activation and inside the LayerNorm (one
        # pass over the activations instead of two in a fused form), unless dropout sits between.
        x = ops.matmul(hidden_states, self.intermediate.kernel)
        x = bias_activation(x, self.intermediate.bias, self.hidden_act)
        if training and self.hidden_dropout_prob > 0:
            x = self.output_dropout(self.output_dense(x), training=training)
            return layer_norm_of_sum(self.layer_norm, x, hidden_states)
        x = ops.matmul(x, self.output_dense.kernel)
        return layer_norm_of_sum(self.layer_norm, x, hidden_states, bias=self.output_dense.bias)

    def compute_output_shape(self, hidden_states_shape):
        return hidden_states_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            hidden_size=self.hidden_size,
            intermediate_size=self.intermediate_size,
            hidden_act=self.hidden_act,
            hidden_dropout_prob=self.hidden_dropout_prob,
            initializer_range=self.initializer_range,
        )
        return config
