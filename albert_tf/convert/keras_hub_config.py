"""`AlbertConfig` <-> the config of keras-hub's `AlbertBackbone` (a preset's `config.json`).

keras-hub's `AlbertBackbone` (0.32) is the original ALBERT with fewer knobs, so a config
converts when it uses them as keras-hub fixes them, and raises a `UserError` otherwise:

| albert_tf                      | keras-hub                                   |
|--------------------------------|---------------------------------------------|
| `sharing="all_shared"`         | the only sharing (groups of inner blocks)   |
| `hidden_act` `gelu`/`gelu_new` | `gelu_approximate` (the tanh form), fixed   |
| layer i in group `int(i/L*G)`  | layer i in group `i // (L/G)` (exact)       |
| LayerNorm epsilon 1e-12        | 1e-12                                       |
| hidden / attention dropout     | one `dropout` for both                      |
| `embedding_projection`         | always a projection E -> H                  |
| `initializer_range`            | 0.02, fixed (initialization only)           |
| pooler: Dense + tanh on [CLS]  | `pooled_dense`, the same                    |
| -10000 added at padded keys    | Keras' masked softmax (the same: exp is 0)  |
| classifier: dropout, Dense     | `output_dropout`, `logits` (the same order) |

The projection: with E == H, albert_tf's default ("auto", the original layout) has none, which
is an identity projection in keras-hub (`keras_hub_weights.py` writes it); a keras-hub backbone
with E == H reads as `embedding_projection="always"`, as Hugging Face's does, so its projection
weights load exactly. Differing dropout rates (a training setting: outputs are unchanged) are
written as the hidden one, with a warning.

Example:
>>> config = AlbertConfig.preset("albert_base")
>>> backbone_kwargs(config)["num_heads"]
12
>>> albert_config_from_keras_hub(backbone_kwargs(config)) == config
True
"""

from __future__ import annotations

import logging
from typing import Any

from albert_tf.config import AlbertConfig
from albert_tf.convert.weight_names import check_convertible
from albert_tf.errors import UserError

# keras-hub's `gelu_approximate` is the tanh form: albert_tf's (and the original's) "gelu".
_TANH_GELU = ("gelu", "gelu_new")
# AlbertConfig field -> AlbertBackbone argument.
_FIELDS = {
    "vocab_size": "vocabulary_size",
    "num_hidden_layers": "num_layers",
    "num_attention_heads": "num_heads",
    "embedding_size": "embedding_dim",
    "hidden_size": "hidden_dim",
    "intermediate_size": "intermediate_dim",
    "num_hidden_groups": "num_groups",
    "inner_group_num": "num_inner_repetitions",
    "max_position_embeddings": "max_sequence_length",
    "type_vocab_size": "num_segments",
}


def check_keras_hub_compatible(config: AlbertConfig) -> None:
    """Raises `UserError` when keras-hub's `AlbertBackbone` would compute another model."""
    check_convertible(config, "keras-hub's AlbertBackbone")
    if config.hidden_act not in _TANH_GELU:
        raise UserError(
            f"hidden_act={config.hidden_act!r} has no keras-hub counterpart: AlbertBackbone "
            "always uses gelu_approximate (albert_tf's 'gelu', the tanh form)"
        )
    per_group = config.num_hidden_layers // config.num_hidden_groups
    differing = [
        i for i in range(config.num_hidden_layers) if i // per_group != config.group_of_layer(i)
    ]
    if differing:
        raise UserError(
            f"num_hidden_layers={config.num_hidden_layers}, num_hidden_groups="
            f"{config.num_hidden_groups}: keras-hub maps layers {differing} to other groups than "
            "the original (i // (L / G) vs float int(i / L * G)); choose another number of groups"
        )


def backbone_kwargs(config: AlbertConfig) -> dict[str, Any]:
    """`keras_hub.models.AlbertBackbone` arguments for `config` (checked, see module docstring)."""
    check_keras_hub_compatible(config)
    if config.attention_probs_dropout_prob != config.hidden_dropout_prob:
        logging.warning(
            "keras-hub's AlbertBackbone has one dropout rate: writing hidden_dropout_prob=%s, "
            "not attention_probs_dropout_prob=%s (outputs are unchanged, training is not).",
            config.hidden_dropout_prob,
            config.attention_probs_dropout_prob,
        )
    kwargs = {name: getattr(config, field) for field, name in _FIELDS.items()}
    kwargs["dropout"] = config.hidden_dropout_prob
    return kwargs


def albert_config_from_keras_hub(
    values: dict[str, Any], source: str = "config.json"
) -> AlbertConfig:
    """The `AlbertConfig` of an `AlbertBackbone` config dict (`config.json`'s `"config"`)."""
    missing = sorted(name for name in _FIELDS.values() if name not in values)
    if missing:
        raise UserError(f"{source}: AlbertBackbone config without {missing}")
    dropout = values.get("dropout", 0.0)
    same_size = values["embedding_dim"] == values["hidden_dim"]
    try:
        config = AlbertConfig(
            **{field: values[name] for field, name in _FIELDS.items()},
            hidden_act="gelu",
            hidden_dropout_prob=dropout,
            attention_probs_dropout_prob=dropout,
            embedding_projection="always" if same_size else "auto",
        )
    except UserError as error:
        raise UserError(f"{source}: {error}") from error
    check_keras_hub_compatible(config)
    return config
