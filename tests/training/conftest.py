"""Shared fixtures of the pretraining tests: tiny records, a tiny model config."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

SEQ_LENGTH = 16
PREDICTIONS = 4
VOCAB_SIZE = 64
TINY_ALBERT = {
    "vocab_size": VOCAB_SIZE,
    "embedding_size": 16,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 32,
    "hidden_dropout_prob": 0.0,
    "attention_probs_dropout_prob": 0.0,
}


def synthetic_features(
    num_records: int,
    seed: int,
    seq_length: int = SEQ_LENGTH,
    predictions: int = PREDICTIONS,
    vocab_size: int = VOCAB_SIZE,
):
    """Random records in the pretraining schema, with a varying number of predictions."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(seq_length // 2, seq_length + 1, size=num_records)
    positions = np.arange(seq_length)[None, :]
    input_mask = (positions < lengths[:, None]).astype(np.int64)
    input_ids = rng.integers(5, vocab_size, size=(num_records, seq_length)) * input_mask
    num_predictions = rng.integers(1, predictions + 1, size=num_records)
    weights = (np.arange(predictions)[None, :] < num_predictions[:, None]).astype(np.float32)
    masked_positions = np.stack(
        [np.sort(rng.choice(np.arange(1, n), predictions, replace=False)) for n in lengths]
    )
    return {
        "input_ids": input_ids,
        "input_mask": input_mask,
        "segment_ids": (positions >= lengths[:, None] // 2).astype(np.int64) * input_mask,
        "token_boundary": input_mask,
        "masked_lm_positions": masked_positions * weights.astype(np.int64),
        "masked_lm_ids": rng.integers(5, vocab_size, size=(num_records, predictions))
        * weights.astype(np.int64),
        "masked_lm_weights": weights,
        "next_sentence_labels": rng.integers(0, 2, size=(num_records, 1)),
    }


def write_records(path: str, num_records: int, seed: int, **shape) -> str:
    import tensorflow as tf

    from albert_tf.data.records import serialize_examples

    with tf.io.TFRecordWriter(path) as writer:
        for record in serialize_examples(synthetic_features(num_records, seed, **shape)):
            writer.write(record)
    return path


@pytest.fixture(scope="session")
def make_features():
    """`synthetic_features(num_records, seed, ...)`: tests import helpers as fixtures."""
    return synthetic_features


@pytest.fixture(scope="session")
def tiny_albert() -> dict:
    return dict(TINY_ALBERT)


@pytest.fixture(scope="session")
def record_dir(tmp_path_factory) -> str:
    """Two training shards and one eval shard of tiny records."""
    directory = str(tmp_path_factory.mktemp("records"))
    write_records(os.path.join(directory, "train-0.tfrecord"), 96, seed=1)
    write_records(os.path.join(directory, "train-1.tfrecord"), 96, seed=2)
    write_records(os.path.join(directory, "eval-0.tfrecord"), 40, seed=3)
    return directory


@pytest.fixture(scope="session")
def albert_config_file(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("config") / "albert_config.json")
    with open(path, "w") as f:
        json.dump(TINY_ALBERT, f)
    return path


def tiny_pretrain_config(record_dir: str, albert_config_file: str, **changes):
    """A PretrainConfig for the tiny model and records (a few steps), with `changes`."""
    from albert_tf.training.pretrain_config import PretrainConfig

    return PretrainConfig(
        input_file=os.path.join(record_dir, "train-*.tfrecord"),
        eval_file=os.path.join(record_dir, "eval-*.tfrecord"),
        albert_config_file=albert_config_file,
        train_batch_size=8,
        eval_batch_size=8,
        max_seq_length=SEQ_LENGTH,
        max_predictions_per_seq=PREDICTIONS,
        learning_rate=1e-3,
        num_train_steps=6,
        num_warmup_steps=2,
        save_checkpoints_steps=3,
        log_every_steps=3,
        max_eval_steps=2,
        shuffle_buffer_size=64,
    ).replace(**changes)


@pytest.fixture()
def base_config(record_dir, albert_config_file):
    """A PretrainConfig for the tiny model and records (a few steps)."""
    return tiny_pretrain_config(record_dir, albert_config_file)
