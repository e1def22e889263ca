"""`AlbertConfig`: the original `albert_config.json` fields plus a sharing mode.

The field names are those of the original TF1 release so that its
`albert_config.json` files load unchanged. `sharing` adds the paper's
cross-layer sharing ablations (Lan et al. 2020, Table 4).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from typing import Any

from albert_tf.config_fields import check_choice
from albert_tf.errors import MissingInputError, UserError

SHARING_MODES = ("all_shared", "shared_attention", "shared_ffn", "not_shared")
# "auto": the original TF1 layout, an embedding projection E -> H only when E != H;
# "always": Hugging Face's layout, `embedding_hidden_mapping_in` even when E == H.
EMBEDDING_PROJECTIONS = ("auto", "always")
ACTIVATIONS = ("gelu", "gelu_new", "gelu_exact", "relu", "tanh", "linear")
# Every LayerNorm of ALBERT (original and Hugging Face) uses this epsilon; not a config field.
LAYER_NORM_EPSILON = 1e-12

# Keys found in some released albert_config.json files that do not change the
# model (the original code ignores them too).
_IGNORED_KEYS = (
    "down_scale_factor",
    "net_structure_type",
    "gap_size",
    "num_memory_blocks",
    "layers_to_keep",
)


@dataclasses.dataclass(frozen=True)
class AlbertConfig:
    """Hyper-parameters of an ALBERT (or BERT-shaped) encoder.

    Layer `i` (0-based) of `num_hidden_layers` uses group
    `int(i / num_hidden_layers * num_hidden_groups)`, each group holds
    `inner_group_num` blocks applied in order, as in the original code.

    `embedding_projection` is `"auto"` (the original layout: the embedding
    projection E -> H exists only when E != H) or `"always"` (Hugging Face's
    layout, which has `embedding_hidden_mapping_in` even when E == H; models
    converted from Hugging Face with E == H use it).

    `sharing` selects the paper's ablations:
      * `"all_shared"` (default): blocks are shared as the groups say.
      * `"shared_attention"`: attention shared by group, feed-forward per layer.
      * `"shared_ffn"`: feed-forward shared by group, attention per layer.
      * `"not_shared"`: every layer has its own block (BERT).

    Example:
    >>> config = AlbertConfig.preset("albert_base")
    >>> config.hidden_size
    768
    >>> AlbertConfig.from_dict(config.to_dict()) == config
    True
    """

    vocab_size: int = 30000
    embedding_size: int = 128
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_hidden_groups: int = 1
    inner_group_num: int = 1
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    hidden_act: str = "gelu"
    hidden_dropout_prob: float = 0.0
    attention_probs_dropout_prob: float = 0.0
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    initializer_range: float = 0.02
    sharing: str = "all_shared"
    embedding_projection: str = "auto"

    def __post_init__(self) -> None:
        positive = (
            "vocab_size",
            "embedding_size",
            "hidden_size",
            "num_hidden_layers",
            "num_hidden_groups",
            "inner_group_num",
            "num_attention_heads",
            "intermediate_size",
            "max_position_embeddings",
            "type_vocab_size",
        )
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise UserError(f"AlbertConfig.{name} must be a positive integer, got {value!r}.")
        if self.hidden_size % self.num_attention_heads:
            raise UserError(
                f"AlbertConfig.hidden_size ({self.hidden_size}) must be divisible by "
                f"num_attention_heads ({self.num_attention_heads})."
            )
        if self.num_hidden_layers % self.num_hidden_groups:
            raise UserError(
                f"AlbertConfig.num_hidden_layers ({self.num_hidden_layers}) must be divisible "
                f"by num_hidden_groups ({self.num_hidden_groups})."
            )
        if self.hidden_act not in ACTIVATIONS:
            raise UserError(
                f"AlbertConfig.hidden_act {self.hidden_act!r} is not supported; "
                f"use one of {ACTIVATIONS}."
            )
        if self.sharing not in SHARING_MODES:
            raise UserError(
                f"AlbertConfig.sharing {self.sharing!r} is unknown; use one of {SHARING_MODES}."
            )
        if self.embedding_projection not in EMBEDDING_PROJECTIONS:
            raise ValueError(
                f"AlbertConfig.embedding_projection {self.embedding_projection!r} is unknown; "
                f"use one of {EMBEDDING_PROJECTIONS}."
            )
        for name in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
            value = getattr(self, name)
            if not 0.0 <= value < 1.0:
                raise UserError(f"AlbertConfig.{name} must be in [0, 1), got {value!r}.")
        if self.initializer_range <= 0:
            raise UserError(
                f"AlbertConfig.initializer_range must be positive, got {self.initializer_range!r}."
            )

    # -- derived values ---------------------------------------------------
    @property
    def head_size(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @property
    def has_embedding_projection(self) -> bool:
        """Whether the embeddings are projected E -> H (see `embedding_projection`)."""
        return self.embedding_projection == "always" or self.embedding_size != self.hidden_size

    def group_of_layer(self, layer_index: int) -> int:
        """The original mapping from a layer index to its group."""
        return int(layer_index / self.num_hidden_layers * self.num_hidden_groups)

    # -- serialization ----------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> AlbertConfig:
        """Builds a config; unknown keys are logged and ignored, not fatal."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(k for k in values if k not in known)
        noisy = [k for k in unknown if k not in _IGNORED_KEYS]
        if unknown:
            log = logging.warning if noisy else logging.info
            log("AlbertConfig: ignoring keys %s", ", ".join(unknown))
        return cls(**{k: v for k, v in values.items() if k in known})

    @classmethod
    def from_json_file(cls, path: str | os.PathLike) -> AlbertConfig:
        try:
            with open(path, encoding="utf-8") as f:
                values = json.load(f)
        except json.JSONDecodeError as e:
            raise UserError(f"{path}:{e.lineno}: not valid JSON ({e.msg}).") from e
        except FileNotFoundError as e:
            raise MissingInputError("no such config file", where=str(path)) from e
        except UnicodeDecodeError as e:
            raise UserError("not UTF-8 text", where=str(path), fix="fix the file") from e
        if not isinstance(values, dict):
            raise UserError(f"{path}: expected a JSON object of AlbertConfig fields.")
        try:
            return cls.from_dict(values)
        except (TypeError, ValueError) as e:
            raise UserError(f"{path}: {e}") from e

    def to_json_string(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    def to_json_file(self, path: str | os.PathLike) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json_string())

    def replace(self, **changes: Any) -> AlbertConfig:
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_file_or_preset(cls, name_or_path: str | os.PathLike) -> AlbertConfig:
        """An `albert_config.json` path, or a preset name (`PRESETS`): what
        `--albert_config_file` accepts everywhere. An existing file wins over a preset.

        Example:
        >>> AlbertConfig.from_file_or_preset("albert_large").num_hidden_layers
        24
        """
        path = os.fspath(name_or_path)
        if os.path.isfile(path) or path not in PRESETS:
            if not os.path.isfile(path):
                raise UserError(
                    f"no ALBERT config file {path!r} and no preset of that name",
                    where="--albert_config_file",
                    fix=f"pass an albert_config.json or one of {', '.join(sorted(PRESETS))}",
                )
            return cls.from_json_file(path)
        return cls.preset(path)

    # -- presets ----------------------------------------------------------
    @classmethod
    def preset(cls, name: str, **overrides: Any) -> AlbertConfig:
        """A named configuration from the paper; `overrides` replace fields."""
        check_choice("preset", name, sorted(PRESETS), where="--albert_config_file")
        return cls(**{**PRESETS[name], **overrides})


def _shape(hidden: int, layers: int, heads: int, embedding: int = 128, **extra: Any):
    return dict(
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * hidden,
        embedding_size=embedding,
        **extra,
    )


PRESETS: dict[str, dict[str, Any]] = {
    "albert_base": _shape(768, 12, 12),
    "albert_large": _shape(1024, 24, 16),
    "albert_xlarge": _shape(2048, 24, 16),
    "albert_xxlarge": _shape(4096, 12, 64),
    "bert_base": _shape(768, 12, 12, embedding=768, sharing="not_shared"),
    "bert_large": _shape(1024, 24, 16, embedding=1024, sharing="not_shared"),
    # A tiny shape for tests, the quickstart and smoke runs.
    "albert_tiny": _shape(128, 4, 2, embedding=64, vocab_size=1000, max_position_embeddings=128),
}
