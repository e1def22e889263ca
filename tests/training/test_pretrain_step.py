"""The train step: accumulation equals one big batch, XLA computes what the graph does (train
and eval steps), the steps trace without AutoGraph, metric sums."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.training.new_rows import NewRowsOnly
from albert_tf.training.optimizer_all_reduce import disable_optimizer_all_reduce
from albert_tf.training.optimizers import create_optimizer
from albert_tf.training.pretrain_evaluation import distributed_eval_function
from albert_tf.training.pretrain_step import (
    make_replica_eval_step,
    make_replica_train_step,
    make_train_function,
    metrics_from_sums,
)
from tests.no_autograph import no_autograph

BATCH = 8
FIRST_NEW_ROW = 48  # The tiny model's last 16 pieces play a grown vocabulary's new ones.


def _batches(make_features, num_batches: int):
    features = make_features(BATCH * num_batches, seed=7)
    features.pop("token_boundary")
    features["next_sentence_labels"] = features["next_sentence_labels"].reshape(-1)
    dataset = tf.data.Dataset.from_tensor_slices(
        {
            k: tf.constant(v, tf.float32 if v.dtype == np.float32 else tf.int32)
            for k, v in features.items()
        }
    )
    return iter(dataset.batch(BATCH, drop_remainder=True))


@pytest.fixture(scope="module")
def train(make_features, tiny_albert):
    """`train(accumulation_steps, jit_compile, steps)` -> (weights, metric sums, iterations,
    eval sums)."""
    return lambda *args, **kwargs: _train(make_features, tiny_albert, *args, **kwargs)


def _train(make_features, tiny_albert, accumulation_steps, jit_compile=False, steps=2):
    """Weights, metric sums, iterations and the eval step's sums on a new batch after `steps`
    updates of a fresh seeded model, the first of which trains only the embedding rows from
    `FIRST_NEW_ROW` on (a grown vocabulary's, `--new_rows_only_steps=1`)."""
    tf.keras.utils.set_random_seed(0)
    # One layer: XLA compiles each application of the shared block (the steps are the same).
    config = AlbertConfig.from_dict({**tiny_albert, "num_hidden_layers": 1})
    model = AlbertPretrainer(AlbertEncoder(config))
    optimizer = create_optimizer("lamb", 1e-2, num_train_steps=10, num_warmup_steps=0)
    optimizer.build(model.trainable_variables)
    disable_optimizer_all_reduce(optimizer)
    new_rows = NewRowsOnly.for_pretrainer(model, FIRST_NEW_ROW, steps=1)
    step = make_replica_train_step(
        model, optimizer, BATCH, accumulation_steps, jit_compile, new_rows_only=new_rows
    )
    train = make_train_function(tf.distribute.get_strategy(), step)
    sums = train(_batches(make_features, steps), tf.constant(steps)).numpy() if steps else None
    weights = [v.numpy() for v in model.trainable_variables]
    eval_step = make_replica_eval_step(model, jit_compile)
    eval_sums = eval_step(next(_batches(make_features, 1))).numpy() if steps else None
    return weights, sums, int(optimizer.iterations), eval_sums


@pytest.fixture(scope="module")
def one_batch_run(train):
    return train(accumulation_steps=1)


@pytest.mark.slow  # Compiles a pretraining step.
def test_accumulating_micro_batches_equals_one_big_batch(train, one_batch_run):
    weights, sums, iterations, _ = one_batch_run
    accumulated_weights, accumulated_sums, accumulated_iterations, _ = train(accumulation_steps=4)
    assert iterations == accumulated_iterations == 2  # one update per step, not per micro-batch
    np.testing.assert_allclose(accumulated_sums, sums, rtol=1e-5)
    for expected, actual in zip(weights, accumulated_weights, strict=True):
        np.testing.assert_allclose(actual, expected, rtol=2e-4, atol=2e-6)
    # The updates moved the weights: the comparison above is not trivially true.
    initial, _, _, _ = train(accumulation_steps=1, steps=0)
    assert max(np.abs(a - b).max() for a, b in zip(initial, weights, strict=True)) > 1e-3


@pytest.mark.slow  # Compiles the step with XLA.
def test_jit_compiled_steps_match_the_graph_steps(train, one_batch_run):
    """The train step (its new-rows phase included: a boolean tensor, static shapes) and the
    eval step compile with XLA and compute what the graph does."""
    weights, sums, _, eval_sums = one_batch_run
    jit_weights, jit_sums, _, jit_eval_sums = train(accumulation_steps=1, jit_compile=True)
    np.testing.assert_allclose(jit_sums, sums, rtol=1e-4)
    for expected, actual in zip(weights, jit_weights, strict=True):
        np.testing.assert_allclose(actual, expected, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(jit_eval_sums, eval_sums, rtol=1e-4)


@pytest.mark.slow  # Traces and runs a pretraining step.
def test_steps_trace_without_autograph(train, make_features, tiny_albert):
    """The train function (its loop, micro-batches and new-rows phase) and the eval steps."""
    with no_autograph():
        train(accumulation_steps=2, steps=1)
    config = AlbertConfig.from_dict({**tiny_albert, "num_hidden_layers": 1})
    evaluate = distributed_eval_function(
        AlbertPretrainer(AlbertEncoder(config)), tf.distribute.get_strategy(), jit_compile=False
    )
    with no_autograph():
        evaluate.get_concrete_function(next(_batches(make_features, 1)))


def test_metrics_from_sums():
    metrics = metrics_from_sums([3.0, 4.0, 8.0, 1.0, 2.0, 1.5])
    assert metrics == {
        "masked_lm_accuracy": 0.75,
        "masked_lm_loss": 2.0,
        "sentence_order_accuracy": 0.5,
        "sentence_order_loss": 0.75,
        "loss": 2.75,
    }


@pytest.mark.parametrize("weight, loss", [(0.0, 2.0), (0.5, 2.375)])
def test_metrics_loss_is_the_weighted_objective(weight, loss):
    metrics = metrics_from_sums([3.0, 4.0, 8.0, 1.0, 2.0, 1.5], sentence_order_loss_weight=weight)
    assert metrics["loss"] == loss and metrics["sentence_order_loss"] == 0.75


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_sentence_order_loss_weight_zero_trains_mlm_only(make_features, tiny_albert, weight):
    tf.keras.utils.set_random_seed(0)
    model = AlbertPretrainer(AlbertEncoder(AlbertConfig.from_dict(tiny_albert)))
    # No weight decay: with it, weights move without any gradient.
    optimizer = create_optimizer(
        "lamb", 1e-2, num_train_steps=10, num_warmup_steps=0, weight_decay=0.0
    )
    optimizer.build(model.trainable_variables)
    disable_optimizer_all_reduce(optimizer)
    head = [model.sentence_order_head, model.encoder.pooler]
    before = [w.numpy().copy() for layer in head for w in layer.weights]
    word_embeddings = model.encoder.embeddings.word_embeddings.embeddings.numpy().copy()
    step = make_replica_train_step(model, optimizer, BATCH, 1, False, weight)
    make_train_function(tf.distribute.get_strategy(), step)(
        _batches(make_features, 2), tf.constant(2)
    )
    after = [w.numpy() for layer in head for w in layer.weights]
    unchanged = all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
    assert unchanged == (weight == 0.0)  # no SOP gradient reaches the head or the pooler
    assert not np.array_equal(model.encoder.embeddings.word_embeddings.embeddings, word_embeddings)
