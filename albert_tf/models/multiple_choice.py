"""`AlbertMultipleChoice`: one score per (context, option) pair, softmax over the options."""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf

from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.task_heads import dense_head, id_inputs, task_encoder

# Logit of a padded option: far below any real score, finite so an all-padded row stays NaN-free.
PADDED_OPTION_LOGIT = -1e9


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


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertMultipleChoice(keras.Model):
    """Multiple choice as the original `run_race.py` builds it.

    Every option is its own sequence `[CLS] context [SEP] question+option [SEP]`; the encoder's
    `pooled_output` -> dropout -> dense(1) gives its score, and a softmax over a question's
    options gives their probabilities (the loss is softmax cross-entropy on those logits).
    Options whose `input_mask` is all zero are padding (questions with fewer options than the
    batch's widest): their logit is `PADDED_OPTION_LOGIT`, so they get probability 0.

    Args:
        encoder: an `AlbertEncoder` (pretrained or fresh), or its serialized form.
        dropout_rate: dropout on `pooled_output` (original: 0.1).
        dtype: dtype policy of the head; the encoder keeps its own.
        **kwargs: `keras.Model` arguments.

    Inputs: int32 `input_word_ids`, `input_mask`, `input_type_ids`, each `[B, N, L]`.
    Output: float32 logits `[B, N]`.

    Example:
        >>> from albert_tf.config import AlbertConfig
        >>> encoder = AlbertEncoder(AlbertConfig(vocab_size=50, embedding_size=8,
        ...     hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        ...     intermediate_size=32, max_position_embeddings=16))
        >>> model = AlbertMultipleChoice(encoder)
        >>> ids = tf.constant([[[2, 7, 3, 9, 3], [2, 7, 3, 0, 0]]])  # 1 question, 2 options
        >>> mask = tf.constant([[[1, 1, 1, 1, 1], [0, 0, 0, 0, 0]]])  # option 2 is padding
        >>> logits = model({"input_word_ids": ids, "input_mask": mask,
        ...                 "input_type_ids": tf.zeros_like(ids)})
        >>> tf.nn.softmax(logits).numpy().round(3).tolist()
        [[1.0, 0.0]]
    """

    def __init__(
        self,
        encoder: AlbertEncoder | dict[str, Any],
        dropout_rate: float = 0.1,
        dtype: Any = None,
        **kwargs,
    ):
        encoder = task_encoder(encoder, "AlbertMultipleChoice")

        # === Layers ===
        dropout = keras.layers.Dropout(dropout_rate, dtype=dtype, name="classifier_dropout")
        head = dense_head(1, encoder, dtype, "classifier")

        # === Functional graph ===
        inputs = id_inputs(shape=(None, None))
        flatten = _FlattenOptions(name="flatten_options")
        option_logits = _OptionLogits(name="option_logits")
        pooled = encoder(flatten(inputs))["pooled_output"]
        logits = option_logits(head(dropout(pooled)), inputs["input_mask"])
        super().__init__(inputs=inputs, outputs=logits, **kwargs)

        # === Attributes ===
        self.encoder = encoder
        self.dropout_rate = dropout_rate
        self.flatten_options = flatten
        self.dropout = dropout
        self.head = head
        self.option_logits = option_logits

    def call(self, inputs, training=None, mask=None):
        # The graph above, with the encoder's last block computing the [CLS] row only.
        pooled = self.encoder.pooled_output(self.flatten_options(inputs), training=training)
        scores = self.head(self.dropout(pooled, training=training))
        return self.option_logits(scores, inputs["input_mask"])

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "encoder": keras.saving.serialize_keras_object(self.encoder),
            "dropout_rate": self.dropout_rate,
            "dtype": keras.dtype_policies.serialize(self.head.dtype_policy),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> AlbertMultipleChoice:
        return cls(**config)
