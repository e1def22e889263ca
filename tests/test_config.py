"""Tests for albert_tf.config."""

import json
import logging

import pytest

from albert_tf.config import PRESETS, AlbertConfig

ORIGINAL_BASE_JSON = {
    "attention_probs_dropout_prob": 0,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0,
    "embedding_size": 128,
    "hidden_size": 768,
    "initializer_range": 0.02,
    "intermediate_size": 3072,
    "max_position_embeddings": 512,
    "num_attention_heads": 12,
    "num_hidden_layers": 12,
    "num_hidden_groups": 1,
    "net_structure_type": 0,
    "gap_size": 0,
    "num_memory_blocks": 0,
    "inner_group_num": 1,
    "down_scale_factor": 1,
    "type_vocab_size": 2,
    "vocab_size": 30000,
}


def test_reads_original_albert_config_json(tmp_path):
    path = tmp_path / "albert_config.json"
    path.write_text(json.dumps(ORIGINAL_BASE_JSON))
    config = AlbertConfig.from_json_file(path)
    assert config == AlbertConfig.preset("albert_base")
    assert config.sharing == "all_shared"


def test_unknown_keys_are_warned_not_fatal(caplog):
    with caplog.at_level(logging.WARNING):
        config = AlbertConfig.from_dict({**ORIGINAL_BASE_JSON, "my_new_knob": 3})
    assert config.hidden_size == 768
    assert "my_new_knob" in caplog.text


def test_json_round_trip(tmp_path):
    config = AlbertConfig.preset("albert_large", sharing="shared_ffn", num_hidden_groups=2)
    path = tmp_path / "config.json"
    config.to_json_file(path)
    assert AlbertConfig.from_json_file(path) == config
    assert AlbertConfig.from_dict(json.loads(config.to_json_string())) == config


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"hidden_size": 100, "num_attention_heads": 12}, "divisible by num_attention_heads"),
        ({"num_hidden_layers": 12, "num_hidden_groups": 5}, "divisible by num_hidden_groups"),
        ({"vocab_size": 0}, "vocab_size must be a positive integer"),
        ({"intermediate_size": -1}, "intermediate_size must be a positive integer"),
        ({"hidden_act": "swishy"}, "hidden_act 'swishy' is not supported"),
        ({"sharing": "half"}, "sharing 'half' is unknown"),
        ({"hidden_dropout_prob": 1.5}, "hidden_dropout_prob must be in"),
    ],
)
def test_invalid_configs_fail_at_construction(changes, message):
    with pytest.raises(ValueError, match=message):
        AlbertConfig(**changes)


def test_invalid_json_names_file_and_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "hidden_size": 768,\n  oops\n}')
    with pytest.raises(ValueError, match=r"bad.json:3"):
        AlbertConfig.from_json_file(path)


def test_invalid_field_in_file_names_file(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({**ORIGINAL_BASE_JSON, "num_hidden_groups": 5}))
    with pytest.raises(ValueError, match=r"c.json: .*num_hidden_groups"):
        AlbertConfig.from_json_file(path)


def test_presets():
    assert set(PRESETS) >= {
        "albert_base",
        "albert_large",
        "albert_xlarge",
        "albert_xxlarge",
        "bert_base",
        "bert_large",
    }
    xxl = AlbertConfig.preset("albert_xxlarge")
    assert (xxl.hidden_size, xxl.num_hidden_layers, xxl.num_attention_heads) == (4096, 12, 64)
    assert xxl.intermediate_size == 16384
    bert = AlbertConfig.preset("bert_base")
    assert bert.embedding_size == bert.hidden_size and bert.sharing == "not_shared"
    with pytest.raises(ValueError, match="preset=.* is not supported"):
        AlbertConfig.preset("albert_huge")


def test_group_of_layer_matches_original_mapping():
    config = AlbertConfig(num_hidden_layers=12, num_hidden_groups=3)
    assert [config.group_of_layer(i) for i in range(12)] == [0] * 4 + [1] * 4 + [2] * 4


def test_from_file_or_preset_takes_a_file_or_a_preset_name(tmp_path):
    from albert_tf.config import PRESETS
    from albert_tf.errors import UserError

    for name in PRESETS:
        assert AlbertConfig.from_file_or_preset(name) == AlbertConfig.preset(name)
    path = tmp_path / "albert_config.json"
    AlbertConfig.preset("albert_tiny", vocab_size=77).to_json_file(path)
    assert AlbertConfig.from_file_or_preset(str(path)).vocab_size == 77
    with pytest.raises(UserError, match="albert_bse.*albert_base"):
        AlbertConfig.from_file_or_preset("albert_bse")


def test_embedding_projection_auto_is_the_original_layout_always_is_hugging_faces():
    same = dict(embedding_size=32, hidden_size=32, num_attention_heads=4)
    assert not AlbertConfig(**same).has_embedding_projection  # original: none when E == H
    assert AlbertConfig(**same, embedding_projection="always").has_embedding_projection
    assert AlbertConfig(
        embedding_size=16, hidden_size=32, num_attention_heads=4
    ).has_embedding_projection
    assert AlbertConfig.from_dict({**same}).embedding_projection == "auto"  # old files
    with pytest.raises(ValueError, match="embedding_projection 'sometimes'"):
        AlbertConfig(embedding_projection="sometimes")
