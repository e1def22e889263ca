"""Hugging Face `transformers` ALBERT weights: read into albert_tf, write from it.

Reads `model.safetensors` (with `safetensors.numpy`, no torch needed), a
sharded `model.safetensors.index.json`, or `pytorch_model.bin` (needs torch).
Writes a directory that `transformers.AlbertForPreTraining.from_pretrained`
(pretrainer) or `AlbertModel.from_pretrained` (encoder) loads: `config.json`
and `model.safetensors` with the names `save_pretrained` uses (see
weight_names.py: Linear weights transposed, tied decoder weight not written).

Keys may carry the `albert.` prefix (task models) or not (`AlbertModel`).
Loading into an encoder takes the backbone of any ALBERT task model and skips
its heads; loading into a pretrainer needs `predictions.*` and
`sop_classifier.*`. An encoder also takes a backbone saved without the pooler
(`AlbertForMaskedLM`, `AlbertModel(add_pooling_layer=False)`): its pooler is
drawn with the model's own initializers, the original's, and a warning says so.

Illustration (not run):
    pretrainer = AlbertPretrainer(AlbertEncoder(config))  # config: see config_conversion.py
    load_hf_weights(pretrainer, read_hf_state_dict("hf_albert_dir"), source="hf_albert_dir")
    save_hf_weights(pretrainer, "/tmp/out/model.safetensors")
"""

from __future__ import annotations

import logging
import os

import keras
import numpy as np

from albert_tf.convert.checkpoint_mismatch import CheckpointMismatchError, check_names_and_shapes
from albert_tf.convert.task_heads import task_head_for_model
from albert_tf.convert.weight_names import (
    HF_BASE_PREFIX,
    HF_TIED_KEYS,
    NamedWeight,
    named_weights,
    split_model,
)
from albert_tf.errors import MissingInputError, UserError
from albert_tf.json_files import read_json_file

SAFETENSORS_NAME = "model.safetensors"
SAFETENSORS_INDEX_NAME = "model.safetensors.index.json"
PYTORCH_NAME = "pytorch_model.bin"
CONFIG_NAME = "config.json"


def _import_safetensors_numpy():
    try:
        import safetensors.numpy  # Optional: the test extra's.
    except ImportError as e:
        raise ImportError(
            "Reading/writing Hugging Face weights needs the `safetensors` package "
            "(pip install safetensors)."
        ) from e
    return safetensors.numpy


def _read_pytorch_bin(path: str) -> dict[str, np.ndarray]:
    try:
        import torch  # Optional: only pytorch_model.bin needs it.
    except ImportError as e:
        raise ImportError(
            f"{path}: reading pytorch_model.bin needs torch; or convert it to model.safetensors."
        ) from e
    state = torch.load(path, map_location="cpu", weights_only=True)
    return {name: tensor.detach().float().numpy() for name, tensor in state.items()}


def read_hf_state_dict(path: str) -> dict[str, np.ndarray]:
    """name -> float32 array from a Hugging Face directory or weights file."""
    path = os.fspath(path)
    if os.path.isdir(path):
        for name in (SAFETENSORS_NAME, SAFETENSORS_INDEX_NAME, PYTORCH_NAME):
            if os.path.exists(os.path.join(path, name)):
                return read_hf_state_dict(os.path.join(path, name))
        raise MissingInputError(
            f"{path}: no {SAFETENSORS_NAME}, {SAFETENSORS_INDEX_NAME} or {PYTORCH_NAME}."
        )
    if path.endswith(".bin"):
        state = _read_pytorch_bin(path)
    elif path.endswith(".index.json"):
        index = read_json_file(path, "a sharded checkpoint's index")
        if not isinstance(index, dict) or not isinstance(index.get("weight_map"), dict):
            raise UserError("no weight_map object in the index", where=path)
        shards = sorted(set(index["weight_map"].values()))
        state = {}
        for shard in shards:
            state.update(read_hf_state_dict(os.path.join(os.path.dirname(path), shard)))
    elif path.endswith(".safetensors"):
        state = _import_safetensors_numpy().load_file(path)
    else:
        raise UserError(
            f"{path}: not a Hugging Face weights file (.safetensors, .bin, .index.json)."
        )
    return {name: np.asarray(value, "float32") for name, value in state.items()}


def _is_head_key(name: str) -> bool:
    return not name.startswith(HF_BASE_PREFIX)


def _canonical_keys(state: dict[str, np.ndarray], has_head: bool) -> dict[str, np.ndarray]:
    """Renames `state` to the model's key style (prefixed with heads, none for encoders)."""
    prefixed = any(name.startswith(HF_BASE_PREFIX) for name in state)
    if has_head:
        return state if prefixed else {HF_BASE_PREFIX + n: v for n, v in state.items()}
    if not prefixed:
        return state
    # An encoder takes the backbone of a task model; its heads are not the encoder's.
    return {n[len(HF_BASE_PREFIX) :]: v for n, v in state.items() if not _is_head_key(n)}


def _resolve_aliases(state: dict[str, np.ndarray], weights, source: str) -> dict[str, np.ndarray]:
    """Folds tied keys into their primary name, checking that they really are tied."""
    state = dict(state)
    aliases = {alias: w.hf_name for w in weights for alias in w.hf_aliases}
    aliases.update(HF_TIED_KEYS)
    for alias, primary in aliases.items():
        if alias not in state:
            continue
        value = state.pop(alias)
        if primary not in state:
            state[primary] = value
        elif state[primary].shape != value.shape or not np.array_equal(state[primary], value):
            raise CheckpointMismatchError(
                f"{source}: {alias} differs from {primary}; albert_tf ties them (like the "
                "original ALBERT), so untied weights cannot be loaded."
            )
    return state


def hf_named_weights(model: keras.Model):
    """`named_weights` as the Hugging Face model has them (no pooler for some task heads)."""
    return [w for w in named_weights(model) if w.hf_name is not None]


def _absent_pooler(
    model: keras.Model, weights: list[NamedWeight], state: dict[str, np.ndarray]
) -> list[NamedWeight]:
    """The pooler weights of an encoder whose checkpoint has no pooler at all, else [].

    `AlbertForMaskedLM` and `AlbertModel(add_pooling_layer=False)` save none; their
    `sequence_output` is whole without it. A task model or pretrainer reads the pooled output
    (classifier, sentence order), so there a missing pooler stays an error, as does half of one.
    """
    encoder, _ = split_model(model)
    if model is not encoder:
        return []
    pooler = [w for w in weights if any(w.variable is v for v in encoder.pooler.weights)]
    return pooler if not any(w.hf_name in state for w in pooler) else []


def _initialize_pooler(model: keras.Model, pooler: list[NamedWeight], source: str) -> None:
    """Draws the pooler afresh with its layer's own initializers (the original's), and says so."""
    encoder, _ = split_model(model)
    layer = encoder.pooler
    for variable, initializer in (
        (layer.kernel, layer.kernel_initializer),
        (layer.bias, layer.bias_initializer),
    ):
        variable.assign(initializer(variable.shape, variable.dtype))
    logging.warning(
        "%s has no pooler (%s): initialized as the original does (kernel truncated normal, "
        "stddev initializer_range=%s; bias zeros), so pooled_output is untrained.",
        source,
        ", ".join(w.hf_name for w in pooler),
        encoder.config.initializer_range,
    )


def load_hf_weights(
    model: keras.Model, state: dict[str, np.ndarray], source: str = "state dict"
) -> None:
    """Assigns a Hugging Face state dict to an encoder or pretrainer; all-or-nothing.

    An encoder's pooler may be absent (module docstring): it is drawn as the original draws it.
    """
    _, pretrainer = split_model(model)
    weights = hf_named_weights(model)
    has_head = pretrainer is not None or task_head_for_model(model) is not None
    state = _canonical_keys(state, has_head=has_head)
    if pretrainer is not None:
        state = _resolve_aliases(state, weights, source)
    absent = _absent_pooler(model, weights, state)
    weights = [w for w in weights if all(w is not a for a in absent)]
    check_names_and_shapes(
        {w.hf_name: w.hf_shape for w in weights},
        {name: value.shape for name, value in state.items()},
        source,
        hint=(
            "Check that the config matches the weights; a pretrainer needs the "
            "AlbertForPreTraining heads (predictions.*, sop_classifier.*), a task model its "
            "task head (e.g. classifier.*), an encoder none."
        ),
    )
    for weight in weights:
        value = state[weight.hf_name]
        if weight.variable is None:
            if not np.allclose(value, weight.hf_constant, rtol=0.0, atol=1e-6):
                raise CheckpointMismatchError(
                    f"{source}: {weight.hf_name} is not the identity, but this config "
                    "(embedding_projection='auto', embedding_size == hidden_size: the original "
                    "layout) has no embedding_hidden_mapping_in; load it with "
                    "embedding_projection='always' (the default for a Hugging Face config.json)."
                )
    for weight in weights:
        if weight.variable is not None:
            weight.assign(state[weight.hf_name], weight.hf_transpose)
    if absent:
        _initialize_pooler(model, absent, source)


def hf_state_dict(model: keras.Model) -> dict[str, np.ndarray]:
    """The model's weights under Hugging Face names, float32 ([out, in] Linear weights)."""
    state = {}
    for weight in hf_named_weights(model):
        constant = weight.variable is None  # An HF-only constant, stored as HF has it.
        value = weight.hf_constant if constant else weight.value(weight.hf_transpose)
        state[weight.hf_name] = np.ascontiguousarray(value)
    return state


def save_hf_weights(model: keras.Model, path: str) -> None:
    """Writes `hf_state_dict(model)` as safetensors (metadata format "pt", which HF expects)."""
    _import_safetensors_numpy().save_file(hf_state_dict(model), path, metadata={"format": "pt"})
