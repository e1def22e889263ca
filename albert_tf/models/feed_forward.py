"""`AlbertFeedForward`: post-LN position-wise feed-forward sub-layer."""

from __future__ import annotations

import keras
from keras import ops

from albert_tf.layer_config import ArgumentsConfig, store_arguments
from albert_tf.models.activations import activation_math
from albert_tf.models.chains import UsesChains
from albert_tf.models.sub_layers import dense, layer_norm


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertFeedForward(UsesChains, ArgumentsConfig, keras.layers.Layer):
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
        store_arguments(self, locals())
        activation_math(hidden_act)  # Fails early on an unknown name.

        dtype = self.dtype_policy
        self.intermediate = dense(intermediate_size, initializer_range, dtype, "intermediate")
        self.output_dense = dense(hidden_size, initializer_range, dtype, "output_dense")
        self.layer_norm = layer_norm(dtype)
        self.output_dropout = keras.layers.Dropout(
            hidden_dropout_prob, dtype=dtype, name="output_dropout"
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
        x = self.chains.bias_activation(x, self.intermediate.bias, self.hidden_act)
        if training and self.hidden_dropout_prob > 0:
            x = self.output_dropout(self.output_dense(x), training=training)
            return self.chains.layer_norm_of_sum(self.layer_norm, x, hidden_states)
        x = ops.matmul(x, self.output_dense.kernel)
        return self.chains.layer_norm_of_sum(
            self.layer_norm, x, hidden_states, bias=self.output_dense.bias
        )

    def compute_output_shape(self, hidden_states_shape):
        return hidden_states_shape
