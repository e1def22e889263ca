"""`AlbertPretrainer`: encoder + masked-LM and sentence-order heads, trainable with `fit`."""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf
from keras import ops

from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.masked_lm_head import AlbertMaskedLMHead
from albert_tf.models.pretraining_loss import pretraining_terms, replica_pretraining_loss
from albert_tf.models.sentence_order_head import AlbertSentenceOrderHead


def _global_totals(terms) -> tuple[Any, Any]:
    """sum(masked_lm_weights) and the number of examples over all replicas."""
    local = tf.stack(
        [
            tf.reduce_sum(terms.masked_lm_weights),
            tf.cast(tf.shape(terms.sentence_order_loss)[0], tf.float32),
        ]
    )
    context = tf.distribute.get_replica_context()
    if context is not None:  # None in a cross-replica context: the batch is global.
        local = context.all_reduce(tf.distribute.ReduceOp.SUM, local)
    return local[0], local[1]


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertPretrainer(keras.Model):
    """ALBERT pretraining model: MLM + SOP on the original TFRecord features.

    Inputs: a dict with `input_ids`, `input_mask`, `segment_ids`,
    `masked_lm_positions` (the model's inputs) and `masked_lm_ids`,
    `masked_lm_weights`, `next_sentence_labels` (the labels, read by the loss);
    int32 or int64, `next_sentence_labels` [B, 1] or [B]. Extra keys are ignored.
    Outputs: `mlm_logits` [B, P, V] and `sop_logits` [B, 2], always float32.

    The labels come with the features, so `compile(optimizer=...)` needs no
    `loss`: `compute_loss` returns this replica's share of the global-batch
    MLM + SOP loss (`replica_pretraining_loss`, the same definition as the
    custom step of `training/pretrain_step.py`; Keras sums the gradients over
    replicas, so N replicas equal one device), and `compute_metrics` updates
    `masked_lm_accuracy`, `masked_lm_loss`, `sentence_order_accuracy`,
    `sentence_order_loss` (Keras metrics, aggregated over steps and replicas).
    A custom loop on one device can use `pretraining_loss_and_metrics(features, outputs)`.

    Attributes: `encoder` (`AlbertEncoder`), `masked_lm_head` (its output
    projection is `encoder.embeddings.word_embeddings.embeddings`), and
    `sentence_order_head`.

    Example:
    >>> from albert_tf.config import AlbertConfig
    >>> model = AlbertPretrainer(AlbertEncoder(AlbertConfig.preset("albert_tiny")))
    >>> model.compile(optimizer="adam", jit_compile=True)
    >>> # model.fit(dataset_of_feature_dicts)
    """

    def __init__(self, encoder: AlbertEncoder | dict[str, Any], **kwargs):
        if isinstance(encoder, dict):
            encoder = keras.saving.deserialize_keras_object(encoder)
        if not isinstance(encoder, AlbertEncoder):
            raise TypeError(f"AlbertPretrainer: encoder must be an AlbertEncoder, got {encoder!r}.")
        kwargs.setdefault("dtype", encoder.dtype_policy)
        super().__init__(**kwargs)
        config = encoder.config
        self.encoder = encoder
        self.masked_lm_head = AlbertMaskedLMHead(
            vocab_size=config.vocab_size,
            embedding_size=config.embedding_size,
            hidden_act=config.hidden_act,
            initializer_range=config.initializer_range,
            token_embedding=encoder.embeddings.word_embeddings,
            dtype=self.dtype_policy,
            name="masked_lm_head",
        )
        self.sentence_order_head = AlbertSentenceOrderHead(
            num_classes=2,
            initializer_range=config.initializer_range,
            dtype=self.dtype_policy,
            name="sentence_order_head",
        )
        # Build now, so that weights can be loaded or counted without a call.
        self.masked_lm_head.build((None, None, config.hidden_size))
        self.sentence_order_head.build((None, config.hidden_size))
        self.built = True

        self.masked_lm_accuracy = keras.metrics.Mean(name="masked_lm_accuracy")
        self.masked_lm_loss = keras.metrics.Mean(name="masked_lm_loss")
        self.sentence_order_accuracy = keras.metrics.Mean(name="sentence_order_accuracy")
        self.sentence_order_loss = keras.metrics.Mean(name="sentence_order_loss")

    def call(self, features: dict[str, Any], training: bool | None = None) -> dict[str, Any]:
        # Only [CLS] and the masked positions of the last layer feed the heads.
        encoder_outputs = self.encoder.call_at_positions(
            {
                "input_word_ids": ops.cast(features["input_ids"], "int32"),
                "input_mask": ops.cast(features["input_mask"], "int32"),
                "input_type_ids": ops.cast(features["segment_ids"], "int32"),
            },
            features["masked_lm_positions"],
            training=training,
        )
        return {
            "mlm_logits": self.masked_lm_head(encoder_outputs["sequence_output"]),
            "sop_logits": self.sentence_order_head(encoder_outputs["pooled_output"]),
        }

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        del y, sample_weight, training  # The labels are in the features `x`.
        terms = pretraining_terms(x, y_pred)
        loss = replica_pretraining_loss(terms, *_global_totals(terms))
        replicas = tf.distribute.get_strategy().num_replicas_in_sync
        for extra in self.losses:  # e.g. regularizers added by users: each replica's share.
            loss = loss + ops.cast(ops.sum(extra), loss.dtype) / replicas
        return loss

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        terms = pretraining_terms(x, y_pred)
        weights = terms.masked_lm_weights
        self.masked_lm_accuracy.update_state(terms.masked_lm_correct, sample_weight=weights)
        self.masked_lm_loss.update_state(terms.masked_lm_loss, sample_weight=weights)
        self.sentence_order_accuracy.update_state(terms.sentence_order_correct)
        self.sentence_order_loss.update_state(terms.sentence_order_loss)
        return self.get_metrics_result()

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": keras.dtype_policies.serialize(self.dtype_policy),
            "encoder": keras.saving.serialize_keras_object(self.encoder),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> AlbertPretrainer:
        return cls(**config)
