"""`DenseTaskModel`: the base of the task models, an ALBERT encoder with one dense output layer.

Classification, multiple choice, span QA and tagging differ only in which encoder output the
head reads, how wide it is, whether dropout comes first, and (multiple choice) an options axis
around the encoder; the rest is here once: the encoder argument (or its config), the int32 id
inputs, the Dense layer initialized like the encoder's weights (the original's
`initializer_range`), float32 logits whatever the dtype policy, the [CLS]-only last block for
pooled heads, and the Keras config.

A head on `sequence_output` never uses the encoder's pooler, so the pooler is frozen
(`trainable=False`): training then has no variables without gradients (Keras warns about
those), and its weights stay as loaded, which is what Hugging Face's QA and token models, built
without a pooler, expect of a converted model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.models.encoder import INPUT_NAMES, AlbertEncoder
from albert_tf.models.sub_layers import dense

# Logit of a padded option: far below any real score, finite so an all-padded row stays NaN-free.
PADDED_OPTION_LOGIT = -1e9
ENCODER_OUTPUTS = ("pooled_output", "sequence_output")


@keras.saving.register_keras_serializable(package="albert_tf")
class _FlattenOptions(keras.layers.Layer):
    """`[B, N, L]` feature dict -> `[B * N, L]`: the encoder sees one option per row."""

    def __init__(self, **kwargs):
        kwargs.setdefault("dtype", "int32")
        super().__init__(**kwargs)

    def call(self, features):
        return {
            name: tf.reshape(value, [-1, tf.shape(value)[-1]]) for name, value in features.items()
        }

    def compute_output_spec(self, features):
        return {
            name: keras.KerasTensor((None, value.shape[-1]), dtype=value.dtype)
            for name, value in features.items()
        }


@keras.saving.register_keras_serializable(package="albert_tf")
class _OptionLogits(keras.layers.Layer):
    """Scores `[B * N, 1]` -> float32 logits `[B, N]`; padded options (no real token) masked."""

    def __init__(self, **kwargs):
        kwargs.setdefault("dtype", "float32")
        super().__init__(**kwargs)

    def call(self, scores, input_mask):
        logits = tf.reshape(tf.cast(scores, tf.float32), tf.shape(input_mask)[:2])
        is_real = tf.reduce_any(input_mask > 0, axis=-1)
        return tf.where(is_real, logits, tf.constant(PADDED_OPTION_LOGIT, tf.float32))

    def compute_output_spec(self, scores, input_mask):
        return keras.KerasTensor(tuple(input_mask.shape[:2]), dtype="float32")


class DenseTaskModel(keras.Model):
    """An `AlbertEncoder` -> (dropout) -> Dense(units) on one of its outputs, float32 logits.

    Subclasses pass their head's shape and add their own constructor arguments to
    `head_config` (what `get_config` saves besides the encoder and dtype).

    Args:
        encoder: an `AlbertEncoder` (pretrained or fresh), or its serialized form.
        units: width of the Dense output layer.
        head_name: its layer name (the checkpoint converters' names refer to `model.head`).
        reads: `"pooled_output"` or `"sequence_output"`.
        dropout_rate: dropout before the head, or None for none.
        dropout_name: the dropout layer's name.
        options: inputs are `[B, N, L]` (N options per example): each option is encoded on its
            own, the head gives one score per option, padded options get
            `PADDED_OPTION_LOGIT`; logits `[B, N]`.
        dtype: dtype policy of the head (e.g. "mixed_bfloat16"); the encoder keeps its own.
        **kwargs: `keras.Model` arguments (name, ...).
    """

    def __init__(
        self,
        encoder: AlbertEncoder | dict[str, Any],
        units: int,
        head_name: str,
        *,
        reads: str = "pooled_output",
        dropout_rate: float | None = None,
        dropout_name: str = "classifier_dropout",
        options: bool = False,
        dtype: Any = None,
        **kwargs,
    ):
        if isinstance(encoder, dict):
            encoder = keras.saving.deserialize_keras_object(encoder)
        if not isinstance(encoder, AlbertEncoder):
            raise TypeError(
                f"{type(self).__name__}: encoder must be an AlbertEncoder, got {encoder!r}."
            )
        if reads not in ENCODER_OUTPUTS:
            raise ValueError(f"reads must be one of {ENCODER_OUTPUTS}, got {reads!r}.")

        # === Layers ===
        dropout = None
        if dropout_rate is not None:
            dropout = keras.layers.Dropout(dropout_rate, dtype=dtype, name=dropout_name)
        head = dense(units, encoder.config.initializer_range, dtype, head_name)
        flatten = _FlattenOptions(name="flatten_options") if options else None
        option_logits = _OptionLogits(name="option_logits") if options else None

        # === Functional graph ===
        shape = (None, None) if options else (None,)
        inputs = {name: keras.Input(shape=shape, dtype="int32", name=name) for name in INPUT_NAMES}
        x = encoder(flatten(inputs) if flatten else inputs)[reads]
        scores = head(dropout(x) if dropout else x)
        super().__init__(
            inputs=inputs, outputs=self._logits(scores, inputs, option_logits), **kwargs
        )

        # === Attributes (set after the graph so Functional tracks them) ===
        self.encoder = encoder
        self.reads = reads
        self.dropout_rate = dropout_rate
        self.dropout = dropout
        self.head = head
        self.flatten_options = flatten
        self.option_logits = option_logits
        if reads == "sequence_output":
            encoder.pooler.trainable = False  # Unused: see the module docstring.

    @staticmethod
    def _logits(scores, inputs, option_logits):
        # Float32 logits: the loss and softmax stay exact under mixed precision.
        if option_logits is not None:
            return option_logits(scores, inputs["input_mask"])
        return keras.ops.cast(scores, "float32")

    def call(self, inputs, training=None, mask=None):
        if self.reads != "pooled_output":
            return super().call(inputs, training=training, mask=mask)
        # The graph, with the encoder's last block computing the [CLS] row only.
        features = self.flatten_options(inputs) if self.flatten_options else inputs
        x = self.encoder.pooled_output(features, training=training)
        scores = self.head(self.dropout(x, training=training) if self.dropout else x)
        return self._logits(scores, inputs, self.option_logits)

    def start_at_label_prior(self, label_counts: Sequence[float]) -> None:
        """Sets the head's bias to each label's log frequency (add-one smoothed): the untrained
        model then predicts the training labels' prior.

        Started from uniform logits with one dominant label (95% `O` in NER), the first
        gradients are one token-independent push ("more `O` everywhere"), which Adam applies at
        the full learning rate to every encoder weight: within ~25 steps every token leaves the
        encoder as the same vector and the model predicts the prior for hundreds of steps
        (docs/tagging.md, "Tag prior"). Starting at the prior removes that push (RetinaNet's
        prior initialization).
        """
        counts = np.asarray(label_counts, dtype=np.float64) + 1.0
        if counts.shape != (self.head.units,):
            raise ValueError(f"{counts.size} label counts for a head of {self.head.units} units.")
        self.head.bias.assign(np.log(counts / counts.sum()).astype(self.head.bias.dtype))

    def head_config(self) -> dict[str, Any]:
        """The subclass's own constructor arguments, as `get_config` saves them."""
        return {}

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "encoder": keras.saving.serialize_keras_object(self.encoder),
            **self.head_config(),
            "dtype": keras.dtype_policies.serialize(self.head.dtype_policy),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> DenseTaskModel:
        return cls(**config)
