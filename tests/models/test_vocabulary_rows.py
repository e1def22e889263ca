"""The weights indexed by piece id, and growing them: old rows and every other weight copied,
new rows the mean of their spelling's rows, outputs on old ids unchanged."""

from __future__ import annotations

import keras
import numpy as np
import pytest

from albert_tf.models import AlbertEncoder, AlbertPretrainer
from albert_tf.models.vocabulary_rows import grow_vocabulary, vocabulary_weights
from tests.models.conftest import TINY, _encoder_inputs, _tiny_config

SPELLINGS = [[5, 6, 7], [1], [40, 40]]  # New ids 97, 98, 99.


def _model(heads: bool) -> AlbertEncoder | AlbertPretrainer:
    encoder = AlbertEncoder(_tiny_config())
    model = AlbertPretrainer(encoder) if heads else encoder
    rng = np.random.default_rng(0)
    for weight in model.weights:  # Every weight random, so a misplaced one shows.
        weight.assign(rng.normal(size=weight.shape).astype(weight.dtype))
    return model


@pytest.mark.parametrize("heads", [False, True])
def test_vocabulary_weights_are_those_with_a_row_per_piece(heads):
    model = _model(heads)
    shapes = [tuple(weight.shape) for weight in vocabulary_weights(model)]
    embedding = (TINY["vocab_size"], TINY["embedding_size"])
    assert shapes == ([embedding, (TINY["vocab_size"],)] if heads else [embedding])


@pytest.mark.parametrize("heads", [False, True])
def test_growing_copies_old_rows_and_averages_the_spellings(heads):
    model = _model(heads)
    grown = grow_vocabulary(model, SPELLINGS)
    old_size = TINY["vocab_size"]
    encoder, grown_encoder = (model.encoder, grown.encoder) if heads else (model, grown)
    assert type(grown) is type(model)
    assert grown_encoder.config == encoder.config.replace(vocab_size=old_size + len(SPELLINGS))
    rows = {weight.path for weight in vocabulary_weights(model)}
    for old, new in zip(model.weights, grown.weights, strict=True):
        path = old.path
        old, new = keras.ops.convert_to_numpy(old), keras.ops.convert_to_numpy(new)
        if path not in rows:
            np.testing.assert_array_equal(new, old, err_msg=path)
            continue
        np.testing.assert_array_equal(new[:old_size], old, err_msg=path)
        for index, ids in enumerate(SPELLINGS):
            np.testing.assert_allclose(new[old_size + index], old[ids].mean(axis=0), rtol=1e-6)
    inputs = _encoder_inputs(vocab=old_size)
    np.testing.assert_allclose(
        grown_encoder(inputs)["sequence_output"], encoder(inputs)["sequence_output"], atol=1e-6
    )
