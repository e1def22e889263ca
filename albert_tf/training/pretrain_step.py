"""The pretraining train/eval steps: per-replica math, run N steps per call.

Exactness across layouts: every replica normalizes its loss by *global*
quantities (the masked-LM weights of the whole global batch, the global number
of examples), the gradients are summed over micro-batches and replicas, then
the optimizer makes ONE update. So 1 device, N replicas and k accumulated
micro-batches all compute the gradient of the same global-batch loss

    sum(w * CE_mlm) / (sum(w) + 1e-5) + mean(CE_sop)

(the original's loss on one core), and global-norm clipping and LAMB's
per-tensor trust ratio see that gradient.

The gradients are all-reduced here, before `optimizer.apply`, because Keras
clips (`global_clipnorm`) *before* its own all-reduce, i.e. per replica; we
switch its all-reduce off (`optimizer_all_reduce.disable_optimizer_all_reduce`, the one
place that touches Keras internals).

Metrics travel as sums in one float32 vector per step (`SUM_NAMES`: one
reduction for all of them); `metrics_from_sums` turns them into the metrics.

The steps are traced without AutoGraph (`autograph=False`; the loop over steps is a
`tf.while_loop`): their Python has no tensor-dependent control flow, and converting the step
and the loss code it calls costs about a CPU second per run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import tensorflow as tf

from albert_tf.models.pretraining_loss import (
    MLM_WEIGHT_EPSILON,
    PretrainingTerms,
    pretraining_terms,
    replica_pretraining_loss,
)
from albert_tf.training.new_rows import NewRowsOnly

# Order of the entries of a metric-sums vector.
SUM_NAMES = (
    "masked_lm_correct",
    "masked_lm_weight",
    "masked_lm_loss",
    "sentence_order_correct",
    "sentence_order_count",
    "sentence_order_loss",
)


def metrics_from_sums(sums: Any, sentence_order_loss_weight: float = 1.0) -> dict[str, float]:
    """The pretraining metrics from a summed vector of `SUM_NAMES`.

    `loss` is the objective the step minimizes: the MLM loss plus the SOP loss scaled by
    `sentence_order_loss_weight` (0.0, MLM only: the SOP head is reported, not trained).
    """
    values = dict(zip(SUM_NAMES, (float(v) for v in sums), strict=True))
    weight = max(values["masked_lm_weight"], MLM_WEIGHT_EPSILON)
    count = max(values["sentence_order_count"], 1.0)
    metrics = {
        "masked_lm_accuracy": values["masked_lm_correct"] / weight,
        "masked_lm_loss": values["masked_lm_loss"] / weight,
        "sentence_order_accuracy": values["sentence_order_correct"] / count,
        "sentence_order_loss": values["sentence_order_loss"] / count,
    }
    metrics["loss"] = (
        metrics["masked_lm_loss"] + sentence_order_loss_weight * metrics["sentence_order_loss"]
    )
    return metrics


def _local_sums(features: dict[str, tf.Tensor], outputs: dict[str, tf.Tensor]) -> tf.Tensor:
    return _sums_of_terms(pretraining_terms(features, outputs))


def _sums_of_terms(terms: PretrainingTerms) -> tf.Tensor:
    w = terms.masked_lm_weights
    count = tf.cast(tf.shape(terms.sentence_order_loss)[0], tf.float32)
    return tf.stack(
        [
            tf.reduce_sum(w * terms.masked_lm_correct),
            tf.reduce_sum(w),
            tf.reduce_sum(w * terms.masked_lm_loss),
            tf.reduce_sum(terms.sentence_order_correct),
            count,
            tf.reduce_sum(terms.sentence_order_loss),
        ]
    )


def make_replica_train_step(
    model: keras.Model,
    optimizer: keras.optimizers.Optimizer,
    global_batch_size: int,
    accumulation_steps: int,
    jit_compile: bool,
    sentence_order_loss_weight: float = 1.0,
    new_rows_only: NewRowsOnly | None = None,
) -> Callable[[dict[str, tf.Tensor]], tf.Tensor]:
    """One optimizer update on one replica's share of the global batch.

    `sentence_order_loss_weight` scales the SOP term (0.0: MLM only). `new_rows_only`: the
    first updates train only a grown vocabulary's new rows (`new_rows.py`).

    Returns `step(features) -> metric sums [6]` (this replica's, before the
    update), to be called inside `strategy.run`.
    """
    variables = model.trainable_variables
    uses_loss_scale = isinstance(optimizer, keras.optimizers.LossScaleOptimizer)

    def micro_step(micro, mlm_weight_total):
        with tf.GradientTape() as tape:
            outputs = model(micro, training=True)
            terms = pretraining_terms(micro, outputs)
            loss = replica_pretraining_loss(
                terms, mlm_weight_total, global_batch_size, sentence_order_loss_weight
            )
            if uses_loss_scale:
                loss = optimizer.scale_loss(loss)
        gradients = tape.gradient(loss, variables)
        # Dense: the embedding's IndexedSlices cannot be accumulated or
        # all-reduced as cheaply, and LAMB densifies them anyway.
        gradients = [tf.convert_to_tensor(g) for g in gradients]
        # The metrics reuse the loss terms (no second cross-entropy over [B, P, V]).
        return gradients, _sums_of_terms(terms)

    def compute_gradients(features):
        context = tf.distribute.get_replica_context()
        mlm_weight_total = context.all_reduce(
            tf.distribute.ReduceOp.SUM, tf.reduce_sum(features["masked_lm_weights"])
        )
        if accumulation_steps == 1:
            gradients, sums = micro_step(features, mlm_weight_total)
        else:
            micro_batches = {
                name: tf.reshape(t, [accumulation_steps, -1, *t.shape[1:]])
                for name, t in features.items()
            }

            def body(i, gradients, sums):
                micro = {name: t[i] for name, t in micro_batches.items()}
                new_gradients, new_sums = micro_step(micro, mlm_weight_total)
                return (
                    i + 1,
                    [a + b for a, b in zip(gradients, new_gradients, strict=True)],
                    sums + new_sums,
                )

            _, gradients, sums = tf.while_loop(
                lambda i, *_: i < accumulation_steps,
                body,
                (
                    tf.constant(0),
                    [tf.zeros_like(v) for v in variables],
                    tf.zeros([len(SUM_NAMES)]),
                ),
            )
        gradients = context.all_reduce(tf.distribute.ReduceOp.SUM, gradients)
        return gradients, sums

    @tf.function(jit_compile=jit_compile, autograph=False)
    def replica_step(features):
        gradients, sums = compute_gradients(features)
        if new_rows_only is None:
            optimizer.apply(gradients, variables)
            return sums
        active = new_rows_only.active(optimizer.iterations)
        before = new_rows_only.snapshot()
        optimizer.apply(new_rows_only.mask_gradients(gradients, active), variables)
        new_rows_only.restore(before, active)
        return sums

    return replica_step


def make_replica_eval_step(model: keras.Model, jit_compile: bool) -> Callable:
    """`step(features) -> metric sums [6]` of one replica's eval batch."""

    @tf.function(jit_compile=jit_compile, autograph=False)
    def eval_step(features):
        return _local_sums(features, model(features, training=False))

    return eval_step


def make_train_function(
    strategy: tf.distribute.Strategy, replica_step: Callable
) -> Callable[[Any, tf.Tensor], tf.Tensor]:
    """`train(iterator, num_steps) -> metric sums over the steps and replicas`.

    Runs `num_steps` updates in one `tf.function` call (`steps_per_execution`),
    so the host is not on the critical path of every step on TPU/GPU.
    """

    @tf.function(autograph=False)  # Its Python has no tensor-dependent control flow.
    def train(iterator, num_steps):
        def body(step, sums):
            per_replica = strategy.run(replica_step, args=(next(iterator),))
            reduced = strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
            return step + 1, sums + reduced

        _, sums = tf.while_loop(
            lambda step, _: step < num_steps,
            body,
            (tf.constant(0, num_steps.dtype), tf.zeros([len(SUM_NAMES)])),
        )
        return sums

    return train
