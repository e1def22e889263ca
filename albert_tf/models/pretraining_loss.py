"""Pure functions for the ALBERT pretraining loss (MLM + SOP) and its metrics.

The one definition of the loss is `replica_pretraining_loss`: a replica's share
of the global-batch loss, normalized by global totals. `AlbertPretrainer.fit`
and the custom step of `training/pretrain_step.py` both use it, so one device
and N replicas optimize the same loss.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from keras import ops

# The original normalizes the MLM loss by sum(weights) + 1e-5.
MLM_WEIGHT_EPSILON = 1e-5


class PretrainingTerms(NamedTuple):
    """Per-example quantities that the loss and the metrics are built from."""

    masked_lm_loss: Any  # [B, P] cross-entropy per masked position
    masked_lm_correct: Any  # [B, P] 1.0 where argmax == label
    masked_lm_weights: Any  # [B, P] 1.0 real prediction, 0.0 padding
    sentence_order_loss: Any  # [B] cross-entropy
    sentence_order_correct: Any  # [B]


def pretraining_terms(features: dict[str, Any], outputs: dict[str, Any]) -> PretrainingTerms:
    """Per-example losses and hits from TFRecord `features` and model `outputs`.

    `features` holds `masked_lm_ids` [B, P], `masked_lm_weights` [B, P] and
    `next_sentence_labels` [B, 1] or [B] (int32 or int64); `outputs` holds
    `mlm_logits` [B, P, V] and `sop_logits` [B, 2].
    """
    mlm_logits = ops.cast(outputs["mlm_logits"], "float32")
    sop_logits = ops.cast(outputs["sop_logits"], "float32")
    mlm_labels = ops.cast(features["masked_lm_ids"], "int32")
    mlm_weights = ops.cast(features["masked_lm_weights"], "float32")
    sop_labels = ops.reshape(ops.cast(features["next_sentence_labels"], "int32"), (-1,))

    def cross_entropy(labels, logits):
        return ops.sparse_categorical_crossentropy(labels, logits, from_logits=True)

    def hits(labels, logits):
        return ops.cast(ops.equal(ops.argmax(logits, axis=-1), labels), "float32")

    return PretrainingTerms(
        masked_lm_loss=cross_entropy(mlm_labels, mlm_logits),
        masked_lm_correct=hits(mlm_labels, mlm_logits),
        masked_lm_weights=mlm_weights,
        sentence_order_loss=cross_entropy(sop_labels, sop_logits),
        sentence_order_correct=hits(sop_labels, sop_logits),
    )


def replica_pretraining_loss(
    terms: PretrainingTerms,
    mlm_weight_total: Any,
    global_batch_size: Any,
    sentence_order_loss_weight: float = 1.0,
) -> Any:
    """This replica's share of the global-batch loss; the shares sum to the loss.

    `mlm_weight_total` is sum(masked_lm_weights) and `global_batch_size` the
    number of examples, both over the global batch (all replicas and
    micro-batches); on one device without accumulation, this batch's.
    `sentence_order_loss_weight` scales the SOP term (0.0: MLM only).

    Example:
    >>> import numpy as np
    >>> terms = PretrainingTerms(
    ...     masked_lm_loss=np.array([[2.0, 9.0]]), masked_lm_correct=np.zeros((1, 2)),
    ...     masked_lm_weights=np.array([[1.0, 0.0]]), sentence_order_loss=np.array([1.0]),
    ...     sentence_order_correct=np.zeros(1))
    >>> round(float(replica_pretraining_loss(terms, 2.0, 4)), 4)  # 2 / 2 + 1 / 4
    1.25
    """
    weighted = ops.sum(terms.masked_lm_weights * terms.masked_lm_loss)
    sentence_order = ops.sum(terms.sentence_order_loss)
    return weighted / (mlm_weight_total + MLM_WEIGHT_EPSILON) + sentence_order * (
        sentence_order_loss_weight / ops.cast(global_batch_size, sentence_order.dtype)
    )


def pretraining_loss_and_metrics(
    features: dict[str, Any],
    outputs: dict[str, Any],
    sentence_order_loss_weight: float = 1.0,
) -> tuple[Any, dict[str, Any]]:
    """(total loss, per-batch metrics) as in the original `run_pretraining.py`.

    MLM loss = sum(w * CE) / (sum(w) + 1e-5); SOP loss = mean CE; total = MLM loss +
    `sentence_order_loss_weight` * SOP loss (1.0, the original's sum; 0.0, MLM only, as
    `PretrainConfig.sentence_order_loss_weight` trains).
    The metrics are this batch's values: `masked_lm_accuracy` (weighted by
    `masked_lm_weights`), `masked_lm_loss`, `sentence_order_accuracy`,
    `sentence_order_loss`. For a custom training loop.

    Example:
    >>> import numpy as np
    >>> features = {"masked_lm_ids": np.zeros((1, 2), "int64"),
    ...             "masked_lm_weights": np.array([[1.0, 0.0]], "float32"),
    ...             "next_sentence_labels": np.zeros((1, 1), "int64")}
    >>> outputs = {"mlm_logits": np.zeros((1, 2, 4), "float32"),
    ...            "sop_logits": np.zeros((1, 2), "float32")}
    >>> loss, metrics = pretraining_loss_and_metrics(features, outputs)
    >>> round(float(metrics["sentence_order_loss"]), 4)  # log(2)
    0.6931
    """
    terms = pretraining_terms(features, outputs)
    weights = terms.masked_lm_weights
    weight_sum = ops.sum(weights)
    masked_lm_loss = ops.sum(weights * terms.masked_lm_loss) / (weight_sum + MLM_WEIGHT_EPSILON)
    sentence_order_loss = ops.mean(terms.sentence_order_loss)
    loss = replica_pretraining_loss(
        terms, weight_sum, ops.shape(terms.sentence_order_loss)[0], sentence_order_loss_weight
    )
    metrics = {
        "masked_lm_accuracy": ops.sum(weights * terms.masked_lm_correct)
        / ops.maximum(weight_sum, MLM_WEIGHT_EPSILON),
        "masked_lm_loss": masked_lm_loss,
        "sentence_order_accuracy": ops.mean(terms.sentence_order_correct),
        "sentence_order_loss": sentence_order_loss,
    }
    return loss, metrics
