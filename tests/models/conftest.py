"""Shared fixtures for tests/models: tiny configs, feature batches, symbolic builds."""

from __future__ import annotations

import contextlib

import keras
import numpy as np
import pytest

from albert_tf.config import AlbertConfig

TINY = dict(
    vocab_size=97,
    embedding_size=16,
    hidden_size=32,
    num_hidden_layers=3,
    num_attention_heads=4,
    intermediate_size=64,
    max_position_embeddings=64,
)


def _tiny_config(**overrides) -> AlbertConfig:
    return AlbertConfig(**{**TINY, **overrides})


def _encoder_inputs(batch: int = 2, seq: int = 12, vocab: int = 97, seed: int = 0, real=None):
    """Random ids; the first `real` positions of each row are real tokens (default all)."""
    rng = np.random.default_rng(seed)
    mask = np.zeros((batch, seq), "int32")
    mask[:, : seq if real is None else real] = 1
    return {
        "input_word_ids": rng.integers(1, vocab, (batch, seq)).astype("int32"),
        "input_mask": mask,
        "input_type_ids": (np.arange(seq) >= seq // 2).astype("int32")[None].repeat(batch, 0),
    }


def _pretraining_features(
    batch: int = 4, seq: int = 16, predictions: int = 4, vocab: int = 97, seed: int = 0
) -> dict[str, np.ndarray]:
    """A batch in the TFRecord schema (int64 ids, float weights, [B, 1] labels)."""
    rng = np.random.default_rng(seed)
    weights = np.ones((batch, predictions), "float32")
    weights[:, -1] = 0.0  # one padded prediction per row
    return {
        "input_ids": rng.integers(0, vocab, (batch, seq)).astype("int64"),
        "input_mask": np.ones((batch, seq), "int64"),
        "segment_ids": (np.arange(seq) >= seq // 2).astype("int64")[None].repeat(batch, 0),
        "masked_lm_positions": np.sort(rng.choice(seq, (batch, predictions)), -1).astype("int64"),
        "masked_lm_ids": rng.integers(0, vocab, (batch, predictions)).astype("int64"),
        "masked_lm_weights": weights,
        "next_sentence_labels": rng.integers(0, 2, (batch, 1)).astype("int64"),
    }


def _num_params(variables) -> int:
    return sum(int(np.prod(v.shape)) for v in variables)


@contextlib.contextmanager
def _symbolic_build():
    """Creates real layers and variables without allocating their values.

    Keras defers variable initialization inside a StatelessScope; used to count
    the parameters of the full-size presets (e.g. 335M for BERT-large) quickly.
    Keras keeps the deferred variables in its global state, for the next scope to
    initialize; `clear_session` drops them (and the layer-name counters; the global
    dtype policy, which it resets too, is put back).
    """
    policy = keras.config.dtype_policy()
    try:
        with keras.StatelessScope(initialize_variables=False):
            yield
    finally:
        keras.utils.clear_session(free_memory=False)
        keras.config.set_dtype_policy(policy)


@pytest.fixture
def restore_policy():
    """Restores the global dtype policy that a test changes."""
    previous = keras.config.dtype_policy()
    yield
    keras.config.set_dtype_policy(previous)


# Helpers as fixtures: test modules in other folders also have a `conftest`,
# so `from conftest import ...` would be ambiguous.
@pytest.fixture(scope="session")
def tiny_config():
    return _tiny_config


@pytest.fixture(scope="session")
def encoder_inputs():
    return _encoder_inputs


@pytest.fixture(scope="session")
def pretraining_features():
    return _pretraining_features


@pytest.fixture(scope="session")
def num_params():
    return _num_params


@pytest.fixture(scope="session")
def symbolic_build():
    return _symbolic_build
