"""Parameter counts: closed form == the built model, and the paper's Tables 1-4."""

from __future__ import annotations

import pytest

from albert_tf.config import SHARING_MODES, AlbertConfig
from albert_tf.experiments.parameter_counts import (
    count_encoder_parameters,
    millions,
    paper_convention_count,
    paper_shape,
)
from albert_tf.experiments.presets import MODEL_SIZES, PAPER_PARAMETERS
from albert_tf.models.encoder import AlbertEncoder


@pytest.mark.parametrize("sharing", SHARING_MODES)
@pytest.mark.parametrize(
    "shape",
    [
        dict(embedding_size=8, hidden_size=16),
        dict(embedding_size=16, hidden_size=16),
        dict(embedding_size=8, hidden_size=16, num_hidden_groups=2, inner_group_num=2),
    ],
)
def test_closed_form_equals_built_model(sharing, shape):
    config = AlbertConfig(
        vocab_size=50,
        num_hidden_layers=4,
        num_attention_heads=2,
        intermediate_size=24,
        max_position_embeddings=32,
        sharing=sharing,
        **shape,
    )
    assert count_encoder_parameters(config) == AlbertEncoder(config).count_params()


def test_reference_exact_counts():
    # REFERENCE.md section 1: encoder + pooler of the original graph.
    expected = {
        "albert_base": 11_683_584,
        "albert_large": 17_683_968,
        "albert_xlarge": 58_724_864,
        "albert_xxlarge": 222_595_584,
    }
    for name, count in expected.items():
        assert count_encoder_parameters(AlbertConfig.preset(name)) == count


@pytest.mark.parametrize("key", sorted(PAPER_PARAMETERS))
def test_paper_tables_3_and_4(key):
    sharing, embedding = key
    config = paper_shape(sharing, embedding)
    assert millions(paper_convention_count(config)) == PAPER_PARAMETERS[key]
    pooler = 768 * 768 + 768
    expected_gap = pooler if sharing == "not_shared" else 0
    assert count_encoder_parameters(config) - paper_convention_count(config) == expected_gap


def test_paper_tables_1_and_2():
    ours = {
        name: millions(paper_convention_count(AlbertConfig.preset(preset, **overrides)))
        for name, preset, overrides, _ in MODEL_SIZES
    }
    paper = {name: figure for name, _, _, figure in MODEL_SIZES}
    for name in ("BERT-base", "BERT-large", "ALBERT-base", "ALBERT-large"):
        assert ours[name] == paper[name]
    # Where they differ (REFERENCE.md: "12M / 18M / 59-60M / 233-235M"):
    assert ours["BERT-xlarge"] == "1271M"  # paper 1270M (rounded to tens?)
    assert ours["ALBERT-xlarge"] == "59M"  # paper 60M in Table 1, 59M elsewhere
    assert ours["ALBERT-xxlarge"] == "223M"  # paper 235M; 222,595,584 exact
