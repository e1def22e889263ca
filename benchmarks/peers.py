"""The peers the benchmarks measure albert_tf against, built with the same shape.

`keras_hub_backbone`: keras-hub's `AlbertBackbone` for an `AlbertConfig`; `hf_config`: the
Hugging Face `transformers.AlbertConfig` for it, and `hf_fast_tokenizer`: its fast tokenizer for
a SentencePiece model (all through albert_tf's own converters, so the peers cannot drift
apart). Imported lazily: each peer is an optional install.
"""

from __future__ import annotations

import os
from typing import Any

from albert_tf.config import AlbertConfig
from albert_tf.convert.config_conversion import hf_config_dict
from albert_tf.convert.hf_tokenizer import write_hf_tokenizer
from albert_tf.convert.keras_hub_config import backbone_kwargs


def keras_hub_backbone(config: AlbertConfig, precision: str, dropout: float = 0.0) -> Any:
    """keras-hub's `AlbertBackbone` of `config`'s shape, in the dtype policy `precision`."""
    import keras_hub

    kwargs = {**backbone_kwargs(config), "dropout": dropout}
    return keras_hub.models.AlbertBackbone(**kwargs, dtype=precision)


def hf_config(config: AlbertConfig, **overrides: Any) -> Any:
    """`transformers.AlbertConfig` of `config`'s shape, with `overrides` (e.g. `num_labels`)."""
    import transformers

    return transformers.AlbertConfig(**{**hf_config_dict(config), **overrides})


def hf_fast_tokenizer(spm_file: str, workdir: str) -> Any:
    """`transformers.AlbertTokenizerFast` of the SentencePiece model `spm_file`.

    Its files are written under `workdir/hf_tokenizer`; the tokenizer is in memory once loaded.
    """
    import transformers

    directory = os.path.join(workdir, "hf_tokenizer")
    write_hf_tokenizer(spm_file, directory)
    return transformers.AlbertTokenizerFast.from_pretrained(directory)
