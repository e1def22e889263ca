"""AlbertConfig <-> original albert_config.json and Hugging Face config.json."""

from __future__ import annotations

import pytest
import transformers

from albert_tf.config import AlbertConfig
from albert_tf.convert.config_conversion import (
    albert_config_from_hf_dict,
    check_hf_compatible,
    hf_config_dict,
    original_config_dict,
)


@pytest.mark.parametrize(
    "albert_act, hf_act, back",
    [
        ("gelu", "gelu_new", "gelu"),  # The original's gelu is the tanh approximation.
        ("gelu_new", "gelu_new", "gelu"),
        ("gelu_exact", "gelu", "gelu_exact"),  # HF "gelu" is the erf form.
        ("relu", "relu", "relu"),
        ("tanh", "tanh", "tanh"),
    ],
)
def test_activation_names(albert_act, hf_act, back):
    config = AlbertConfig.preset("albert_tiny", hidden_act=albert_act)
    values = hf_config_dict(config)
    assert values["hidden_act"] == hf_act
    assert albert_config_from_hf_dict(values) == config.replace(hidden_act=back)


def test_hf_dict_is_what_transformers_reads():
    config = AlbertConfig.preset("albert_base", num_hidden_groups=2, inner_group_num=3)
    hf_config = transformers.AlbertConfig(**hf_config_dict(config))
    for name in ("vocab_size", "embedding_size", "hidden_size", "num_hidden_groups",
                 "inner_group_num", "intermediate_size", "max_position_embeddings"):  # fmt: skip
        assert getattr(hf_config, name) == getattr(config, name)
    assert hf_config.layer_norm_eps == 1e-12
    # And transformers' own config.json converts back.
    assert albert_config_from_hf_dict(hf_config.to_dict()) == config


def test_original_dict_has_original_fields_only():
    values = original_config_dict(AlbertConfig.preset("albert_base", hidden_act="gelu_new"))
    assert "sharing" not in values
    assert values["hidden_act"] == "gelu"
    assert AlbertConfig.from_dict(values) == AlbertConfig.preset("albert_base")
    with pytest.raises(ValueError, match="gelu_exact.*no original TF1 counterpart"):
        original_config_dict(AlbertConfig.preset("albert_base", hidden_act="gelu_exact"))
    with pytest.raises(ValueError, match="sharing='not_shared'"):
        original_config_dict(AlbertConfig.preset("bert_base"))


def test_unrepresentable_hf_configs_are_refused():
    values = hf_config_dict(AlbertConfig.preset("albert_tiny"))
    with pytest.raises(ValueError, match="layer_norm_eps=1e-05"):
        albert_config_from_hf_dict({**values, "layer_norm_eps": 1e-5})
    with pytest.raises(ValueError, match="hidden_act 'silu'"):
        albert_config_from_hf_dict({**values, "hidden_act": "silu"})
    with pytest.raises(ValueError, match="model_type is 'bert'"):
        albert_config_from_hf_dict({**values, "model_type": "bert"})


def test_layer_to_group_rounding_difference_is_refused():
    # HF computes int(i / (L / G)), the original int(i / L * G): they differ here.
    config = AlbertConfig.preset("albert_tiny", num_hidden_layers=22, num_hidden_groups=22)
    with pytest.raises(ValueError, match="maps layers .* to other groups"):
        check_hf_compatible(config)
    check_hf_compatible(config.replace(num_hidden_groups=11))  # Same mapping: fine.
