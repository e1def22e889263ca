"""Layer analysis: exact on a hand-built case, one value per layer on a tiny model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from albert_tf.config import AlbertConfig
from albert_tf.experiments.layer_analysis import hidden_states, layer_transitions
from albert_tf.models.encoder import AlbertEncoder


def test_hand_built_case_is_exact():
    # One record of 3 tokens, the last is padding (must be ignored).
    x0 = np.array([[[3.0, 4.0], [1.0, 0.0], [100.0, 100.0]]])
    x1 = np.array([[[3.0, 4.0], [0.0, 1.0], [-5.0, 7.0]]])  # token 0 unchanged, token 1 turned
    x2 = np.array([[[-3.0, -4.0], [0.0, 3.0], [0.0, 0.0]]])  # token 0 flipped, token 1 scaled
    mask = np.array([[1, 1, 0]])
    rows = layer_transitions([x0, x1, x2], mask)
    assert [row["layer"] for row in rows] == [1, 2]
    # Layer 1: distances 0 and sqrt(2), cosines 1 and 0.
    assert rows[0]["l2_distance"] == pytest.approx(math.sqrt(2) / 2, abs=1e-12)
    assert rows[0]["cosine_similarity"] == pytest.approx(0.5, abs=1e-12)
    # Layer 2: distances 10 and 2, cosines -1 and 1.
    assert rows[1]["l2_distance"] == pytest.approx(6.0, abs=1e-12)
    assert rows[1]["cosine_similarity"] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    "sharing,layers,inner", [("all_shared", 3, 1), ("not_shared", 2, 1), ("all_shared", 2, 2)]
)
def test_one_value_per_layer_of_a_tiny_model(sharing, layers, inner):
    config = AlbertConfig(
        vocab_size=40,
        embedding_size=8,
        hidden_size=16,
        num_hidden_layers=layers,
        inner_group_num=inner,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
        sharing=sharing,
    )
    encoder = AlbertEncoder(config)
    rng = np.random.default_rng(0)
    mask = np.array([[1] * 10 + [0] * 2, [1] * 12], "int32")
    features = {
        "input_ids": (rng.integers(5, 40, size=(2, 12)) * mask).astype("int32"),
        "input_mask": mask,
        "segment_ids": np.zeros((2, 12), "int32"),
    }
    states = hidden_states(encoder, features)
    assert len(states) == layers * inner + 1
    # The last state is the encoder's own output: the analysis runs the real layers.
    outputs = encoder(
        {
            "input_word_ids": features["input_ids"],
            "input_mask": mask,
            "input_type_ids": features["segment_ids"],
        }
    )
    np.testing.assert_allclose(states[-1], outputs["sequence_output"], atol=1e-5)
    rows = layer_transitions(states, mask)
    assert [row["layer"] for row in rows] == list(range(1, layers * inner + 1))
    for row in rows:
        assert row["l2_distance"] > 0
        assert -1.0 <= row["cosine_similarity"] <= 1.0
