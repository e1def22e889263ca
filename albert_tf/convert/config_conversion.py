"""`AlbertConfig` <-> original `albert_config.json` and Hugging Face `config.json`.

Activation names differ between the three:

| albert_tf `hidden_act` | original            | Hugging Face          |
|------------------------|---------------------|-----------------------|
| `gelu` / `gelu_new`    | `gelu` (tanh form)  | `gelu_new`            |
| `gelu_exact` (erf)     | (none: error)       | `gelu`                |
| `relu`, `tanh`, `linear` | same              | same                  |

Hugging Face's `gelu_pytorch_tanh` and `gelu_fast` are the tanh form too.

Hugging Face always has `embedding_hidden_mapping_in`; the original only when
E != H. A Hugging Face config with E == H becomes `embedding_projection="always"`
(the weights load exactly and convert back unchanged); the original format has
no place for that projection, so such a model does not convert to it.

Two more facts are checked, not converted: albert_tf uses LayerNorm epsilon
1e-12 (HF `layer_norm_eps` must be 1e-12), and Hugging Face maps layer i to
group `int(i / (L / G))` where the original computes `int(i / L * G)`; the
two differ in floating point for a few (L, G) such as (22, 22) or (44, 22),
so such configs raise instead of converting to a different model.

Example:
>>> config = AlbertConfig.preset("albert_base")
>>> hf_config_dict(config)["hidden_act"]
'gelu_new'
>>> albert_config_from_hf_dict(hf_config_dict(config)) == config
True
"""

from __future__ import annotations

from typing import Any

from albert_tf.config import LAYER_NORM_EPSILON, AlbertConfig
from albert_tf.errors import UserError

_TO_HF_ACTIVATION = {
    "gelu": "gelu_new",
    "gelu_new": "gelu_new",
    "gelu_exact": "gelu",
    "relu": "relu",
    "tanh": "tanh",
    "linear": "linear",
}
_FROM_HF_ACTIVATION = {
    "gelu_new": "gelu",
    "gelu_pytorch_tanh": "gelu",
    "gelu_fast": "gelu",
    "gelu": "gelu_exact",
    "relu": "relu",
    "tanh": "tanh",
    "linear": "linear",
}
_TO_ORIGINAL_ACTIVATION = {
    "gelu": "gelu",
    "gelu_new": "gelu",
    "relu": "relu",
    "tanh": "tanh",
    "linear": "linear",
}

# AlbertConfig fields that Hugging Face's AlbertConfig has under the same name.
_SHARED_FIELDS = (
    "vocab_size",
    "embedding_size",
    "hidden_size",
    "num_hidden_layers",
    "num_hidden_groups",
    "num_attention_heads",
    "intermediate_size",
    "inner_group_num",
    "hidden_dropout_prob",
    "attention_probs_dropout_prob",
    "max_position_embeddings",
    "type_vocab_size",
    "initializer_range",
)


def hf_group_of_layer(config: AlbertConfig, layer_index: int) -> int:
    """Hugging Face's mapping from a layer to its group (see the module docstring)."""
    return int(layer_index / (config.num_hidden_layers / config.num_hidden_groups))


def check_hf_compatible(config: AlbertConfig) -> None:
    """Raises `ValueError` when Hugging Face would run `config` as a different model."""
    if config.sharing != "all_shared":
        raise UserError(
            f"sharing={config.sharing!r} has no Hugging Face counterpart (it shares whole "
            "blocks by group, i.e. sharing='all_shared')."
        )
    differing = [
        i
        for i in range(config.num_hidden_layers)
        if hf_group_of_layer(config, i) != config.group_of_layer(i)
    ]
    if differing:
        raise UserError(
            f"num_hidden_layers={config.num_hidden_layers}, num_hidden_groups="
            f"{config.num_hidden_groups}: Hugging Face maps layers {differing} to other groups "
            "than the original (float rounding of int(i / (L / G)) vs int(i / L * G)), so the "
            "converted model would compute something else; choose another number of groups."
        )


def hf_config_dict(
    config: AlbertConfig, architecture: str = "AlbertForPreTraining"
) -> dict[str, Any]:
    """The Hugging Face `config.json` content of `config`."""
    check_hf_compatible(config)
    values = {name: getattr(config, name) for name in _SHARED_FIELDS}
    values.update(
        architectures=[architecture],
        model_type="albert",
        hidden_act=_TO_HF_ACTIVATION[config.hidden_act],
        layer_norm_eps=LAYER_NORM_EPSILON,
        classifier_dropout_prob=0.1,
        pad_token_id=0,
        bos_token_id=2,
        eos_token_id=3,
        tie_word_embeddings=True,
        dtype="float32",
    )
    return dict(sorted(values.items()))


def albert_config_from_hf_dict(values: dict[str, Any], source: str = "config.json") -> AlbertConfig:
    """An `AlbertConfig` from a Hugging Face ALBERT `config.json` dict; raises `ValueError`."""
    if values.get("model_type", "albert") != "albert":
        raise UserError(f"{source}: model_type is {values['model_type']!r}, not 'albert'.")
    hidden_act = values.get("hidden_act", "gelu_new")
    if hidden_act not in _FROM_HF_ACTIVATION:
        raise UserError(
            f"{source}: hidden_act {hidden_act!r} has no albert_tf equivalent; "
            f"supported: {sorted(_FROM_HF_ACTIVATION)}."
        )
    epsilon = values.get("layer_norm_eps", LAYER_NORM_EPSILON)
    if epsilon != LAYER_NORM_EPSILON:
        raise UserError(
            f"{source}: layer_norm_eps={epsilon}, but albert_tf (like the original) uses "
            f"{LAYER_NORM_EPSILON}."
        )
    missing = [name for name in _SHARED_FIELDS if name not in values]
    if missing:
        raise UserError(f"{source}: missing ALBERT fields {missing}.")
    same_size = values["embedding_size"] == values["hidden_size"]
    config = AlbertConfig(
        **{name: values[name] for name in _SHARED_FIELDS},
        hidden_act=_FROM_HF_ACTIVATION[hidden_act],
        embedding_projection="always" if same_size else "auto",
    )
    check_hf_compatible(config)
    return config


def original_config_dict(config: AlbertConfig) -> dict[str, Any]:
    """The original release's `albert_config.json` content (no `sharing` key)."""
    if config.sharing != "all_shared":
        raise UserError(f"sharing={config.sharing!r} has no original TF1 counterpart.")
    if config.hidden_act not in _TO_ORIGINAL_ACTIVATION:
        raise UserError(
            f"hidden_act={config.hidden_act!r} has no original TF1 counterpart (the original "
            f"knows {sorted(set(_TO_ORIGINAL_ACTIVATION.values()))}; its 'gelu' is the tanh form)."
        )
    if config.embedding_projection == "always" and config.embedding_size == config.hidden_size:
        raise ValueError(
            "embedding_projection='always' with embedding_size == hidden_size (Hugging Face's "
            "layout) has no original TF1 counterpart: the original has no "
            "embedding_hidden_mapping_in when E == H. Keep the model in albert_tf or Hugging "
            "Face format."
        )
    values = config.to_dict()
    del values["sharing"], values["embedding_projection"]
    values["hidden_act"] = _TO_ORIGINAL_ACTIVATION[config.hidden_act]
    values["down_scale_factor"] = 1  # Present in the released files, unused.
    return dict(sorted(values.items()))
