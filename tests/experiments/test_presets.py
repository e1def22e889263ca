"""Presets expand to the paper's cells at any scale."""

from __future__ import annotations

import pytest

from albert_tf.config import SHARING_MODES
from albert_tf.errors import UserError
from albert_tf.experiments.presets import PRESETS, expand_preset
from albert_tf.experiments.scale import SCALES


@pytest.mark.parametrize("scale_name", sorted(SCALES))
def test_sentence_objective_cells(scale_name):
    scale = SCALES[scale_name]
    cells = expand_preset("sentence_objective", scale)
    assert [(c.name, c.sentence_objective, c.sharing) for c in cells] == [
        ("none", "none", "all_shared"),
        ("nsp", "nsp", "all_shared"),
        ("sop", "sop", "all_shared"),
    ]
    assert {c.embedding_size for c in cells} == {scale.embedding_size}
    assert [c.record_objective for c in cells] == ["sop", "nsp", "sop"]


@pytest.mark.parametrize("scale_name", sorted(SCALES))
def test_sharing_cells(scale_name):
    scale = SCALES[scale_name]
    cells = expand_preset("sharing", scale)
    expected = [
        (embedding, paper, sharing)
        for embedding, paper in ((scale.hidden_size, 768), (scale.embedding_size, 128))
        for sharing in SHARING_MODES
    ]
    assert [(c.embedding_size, c.paper_embedding_size, c.sharing) for c in cells] == expected
    assert len({c.name for c in cells}) == 8
    assert {c.sentence_objective for c in cells} == {"sop"}


def test_embedding_size_cells():
    scale = SCALES["cpu"]
    cells = expand_preset("embedding_size", scale)
    pairs = [(c.sharing, c.embedding_size, c.paper_embedding_size) for c in cells]
    assert pairs == [
        (sharing, e, paper)
        for sharing in ("not_shared", "all_shared")
        for e, paper in ((8, 64), (16, 128), (32, 256), (64, 768))
    ]


def test_model_size_trains_nothing():
    assert expand_preset("model_size", SCALES["cpu"]) == []
    assert not PRESETS["model_size"].trains


def test_cell_config_follows_scale():
    scale = SCALES["tiny"]
    cell = expand_preset("sharing", scale)[2]
    config = cell.albert_config(scale, vocab_size=300)
    assert (config.sharing, config.hidden_size, config.num_hidden_layers) == (
        cell.sharing,
        scale.hidden_size,
        scale.num_hidden_layers,
    )
    assert config.intermediate_size == 4 * scale.hidden_size
    assert config.max_position_embeddings == scale.max_seq_length


def test_steps_per_preset():
    scale = SCALES["cpu"]
    assert PRESETS["sentence_objective"].num_train_steps(scale) == 1000
    assert PRESETS["sharing"].num_train_steps(scale) == 250


def test_unknown_preset():
    with pytest.raises(UserError, match="sentence_objective"):
        expand_preset("nope", SCALES["tiny"])


def test_chinese_masking_cells_differ_only_in_their_records_units():
    char, wwm = expand_preset("chinese_masking", SCALES["cpu"])
    assert (char.name, char.word_segmenter, char.records_name) == ("char", "none", "sop")
    assert (wwm.name, wwm.word_segmenter, wwm.records_name) == ("wwm", "jieba", "sop_jieba")
    assert char.albert_config(SCALES["cpu"], 8000) == wwm.albert_config(SCALES["cpu"], 8000)
