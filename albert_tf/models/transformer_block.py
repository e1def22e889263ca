"""`AlbertTransformerBlock`: one post-LN Transformer block (attention then FFN)."""

from __future__ import annotations

import keras

from albert_tf.layer_config import ArgumentsConfig, store_arguments
from albert_tf.models.attention import AlbertAttention
from albert_tf.models.feed_forward import AlbertFeedForward


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertTransformerBlock(ArgumentsConfig, keras.layers.Layer):
    """`ffn(attention(x, mask))`, the original `group_G/inner_group_I` block.

    Sub-layers: `.attention` (`AlbertAttention`) and `.ffn` (`AlbertFeedForward`).
    Pass existing sub-layers as `attention_layer` / `feed_forward_layer` to share
    them between blocks (the paper's shared-attention / shared-FFN ablations);
    otherwise the block creates its own from the hyper-parameters.

    Example:
    >>> block = AlbertTransformerBlock(hidden_size=16, num_attention_heads=2,
    ...                                intermediate_size=64)
    >>> x = keras.ops.ones((2, 5, 16))
    >>> tuple(block(x, keras.ops.ones((2, 5), "int32")).shape)
    (2, 5, 16)

    `query_positions` [B, Q] computes the block's output at those rows only
    ([B, Q, H]; keys and values still cover the whole sequence). `input_projection` (a Dense
    E -> H) takes [B, T, E] embeddings in place of `hidden_states` (see `AlbertAttention`).
    """

    config_excludes = ("attention_layer", "feed_forward_layer")  # See get_config.

    def __init__(
        self,
        hidden_size: int,
        num_attention_heads: int,
        intermediate_size: int,
        hidden_act: str = "gelu",
        hidden_dropout_prob: float = 0.0,
        attention_probs_dropout_prob: float = 0.0,
        initializer_range: float = 0.02,
        attention_layer: AlbertAttention | dict | None = None,
        feed_forward_layer: AlbertFeedForward | dict | None = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        store_arguments(self, locals())
        # Remembered so that get_config serializes only injected sub-layers.
        self._injected_attention = attention_layer is not None
        self._injected_ffn = feed_forward_layer is not None

        if isinstance(attention_layer, dict):
            attention_layer = keras.saving.deserialize_keras_object(attention_layer)
        if isinstance(feed_forward_layer, dict):
            feed_forward_layer = keras.saving.deserialize_keras_object(feed_forward_layer)
        common = dict(
            hidden_dropout_prob=hidden_dropout_prob,
            initializer_range=initializer_range,
            dtype=self.dtype_policy,
        )
        self.attention = attention_layer or AlbertAttention(
            hidden_size,
            num_attention_heads,
            attention_probs_dropout_prob=attention_probs_dropout_prob,
            name="attention",
            **common,
        )
        self.ffn = feed_forward_layer or AlbertFeedForward(
            hidden_size, intermediate_size, hidden_act=hidden_act, name="ffn", **common
        )

    def build(self, hidden_states_shape, input_mask_shape=None):
        # A shared sub-layer is built once, by the first block that uses it.
        if not self.attention.built:
            self.attention.build(hidden_states_shape)
        if not self.ffn.built:
            self.ffn.build(hidden_states_shape)
        self.built = True

    def call(
        self,
        hidden_states,
        input_mask=None,
        query_positions=None,
        training=None,
        input_projection=None,
    ):
        x = self.attention(
            hidden_states,
            input_mask,
            query_positions,
            training=training,
            input_projection=input_projection,
        )
        return self.ffn(x, training=training)

    def compute_output_shape(
        self, hidden_states_shape, input_mask_shape=None, query_positions_shape=None
    ):
        return self.attention.compute_output_shape(
            hidden_states_shape, input_mask_shape, query_positions_shape
        )

    def get_config(self) -> dict:
        config = super().get_config()
        # Only injected (shared) sub-layers are saved; the block makes its own otherwise.
        config.update(
            attention_layer=(
                keras.saving.serialize_keras_object(self.attention)
                if self._injected_attention
                else None
            ),
            feed_forward_layer=(
                keras.saving.serialize_keras_object(self.ffn) if self._injected_ffn else None
            ),
        )
        return config
