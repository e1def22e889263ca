"""albert_tf weights <-> the variables of keras-hub's `AlbertBackbone` / `AlbertTextClassifier`.

The weights are named through the Hugging Face names of `weight_names.py` (one table of
albert_tf's layout): `keras_hub_path` maps such a name to the keras-hub variable's `path`
(`Variable.path`, e.g. `group_0_inner_layer_0/self_attention_layer/query/kernel`). Values need no
transposing: albert_tf and keras-hub kernels are both [in, out]; keras-hub's attention kernels
split the heads out (`[H, heads, head_size]`, output `[heads, head_size, H]`), a reshape.

albert_tf's identity projection (E == H, `embedding_projection="auto"`) is written as the
identity matrix keras-hub's `embedding_projection` needs. A mismatch of names or sizes raises
`CheckpointMismatchError` before anything is assigned.

Example:
>>> keras_hub_path("albert.encoder.albert_layer_groups.0.albert_layers.1.ffn.weight")
'group_0_inner_layer_1/feedforward_intermediate_dense/kernel'
"""

from __future__ import annotations

import re

import keras
import numpy as np

from albert_tf.convert.checkpoint_mismatch import check_names_and_shapes
from albert_tf.convert.weight_names import HF_BASE_PREFIX, NamedWeight, named_weights

# Hugging Face layer (without `albert.`) -> keras-hub layer path and the layer's kind, which
# names its variables.
_LAYERS = {
    "embeddings.word_embeddings": ("token_embedding", "embedding"),
    "embeddings.position_embeddings": ("position_embedding", "embedding"),
    "embeddings.token_type_embeddings": ("segment_embedding", "embedding"),
    "embeddings.LayerNorm": ("embeddings_layer_norm", "layer_norm"),
    "encoder.embedding_hidden_mapping_in": ("embedding_projection", "dense"),
    "pooler": ("pooled_dense", "dense"),
    "classifier": ("logits", "dense"),  # AlbertTextClassifier's head
}
# Inside block `group_{g}_inner_layer_{i}` (HF `encoder.albert_layer_groups.{g}.albert_layers.{i}`).
_BLOCK_LAYERS = {
    "attention.query": ("self_attention_layer/query", "dense"),
    "attention.key": ("self_attention_layer/key", "dense"),
    "attention.value": ("self_attention_layer/value", "dense"),
    "attention.dense": ("self_attention_layer/attention_output", "dense"),
    "attention.LayerNorm": ("self_attention_layer_norm", "layer_norm"),
    "ffn": ("feedforward_intermediate_dense", "dense"),
    "ffn_output": ("feedforward_output_dense", "dense"),
    "full_layer_layer_norm": ("feedforward_layer_norm", "layer_norm"),
}
_BLOCK = re.compile(r"encoder\.albert_layer_groups\.(\d+)\.albert_layers\.(\d+)\.(.+)")
_VARIABLES = {
    "embedding": {"weight": "embeddings"},
    "layer_norm": {"weight": "gamma", "bias": "beta"},
    "dense": {"weight": "kernel", "bias": "bias"},
}


def keras_hub_path(hf_name: str) -> str | None:
    """The keras-hub variable path of a Hugging Face ALBERT weight; None where keras-hub has
    no such weight (the pretraining heads)."""
    name = hf_name.removeprefix(HF_BASE_PREFIX)
    layer, _, variable = name.rpartition(".")
    block = _BLOCK.fullmatch(layer)
    if block is not None:
        group, inner, layer = block.groups()
        path, kind = _BLOCK_LAYERS[layer]
        path = f"group_{group}_inner_layer_{inner}/{path}"
    elif layer in _LAYERS:
        path, kind = _LAYERS[layer]
    else:
        return None
    return f"{path}/{_VARIABLES[kind][variable]}"


def _albert_value(weight: NamedWeight) -> np.ndarray:
    if weight.variable is None:  # An HF-only constant, stored [out, in] like HF's.
        return weight.hf_constant.T if weight.hf_transpose else weight.hf_constant
    return weight.value()


def _paired(albert_model: keras.Model, keras_hub_model: keras.Model, source: str):
    """[(albert_tf weight, keras-hub variable)], all of both matched; raises on any mismatch."""
    weights = {}
    for weight in named_weights(albert_model):
        path = keras_hub_path(weight.hf_name) if weight.hf_name else None
        if path is not None:
            weights[path] = weight
    variables = {variable.path: variable for variable in keras_hub_model.weights}

    def comparable(variable) -> tuple[int, ...]:  # Head axes split out: the same if same size.
        weight = weights.get(variable.path)
        fits = weight is not None and np.prod(weight.shape) == np.prod(variable.shape)
        return tuple(weight.shape) if fits else tuple(variable.shape)

    check_names_and_shapes(
        {path: tuple(weight.shape) for path, weight in weights.items()},
        {path: comparable(variable) for path, variable in variables.items()},
        source,
        hint="The keras-hub model and the albert_tf model have different shapes.",
    )
    return [(weights[path], variables[path]) for path in sorted(weights)]


def copy_to_keras_hub(albert_model: keras.Model, keras_hub_model: keras.Model) -> None:
    """Assigns an `AlbertEncoder` (`AlbertClassifier`) to an `AlbertBackbone`
    (`AlbertTextClassifier`) of the same config."""
    pairs = _paired(albert_model, keras_hub_model, "the keras-hub model")
    for weight, variable in pairs:
        variable.assign(np.reshape(_albert_value(weight), variable.shape))


def copy_from_keras_hub(keras_hub_model: keras.Model, albert_model: keras.Model, source: str):
    """Assigns an `AlbertBackbone` (`AlbertTextClassifier`) to an albert_tf model built from its
    config (with E == H: `embedding_projection="always"`, so every weight is a variable)."""
    pairs = _paired(albert_model, keras_hub_model, source)
    for weight, variable in pairs:
        value = np.asarray(variable, "float32")
        weight.variable.assign(np.reshape(value, weight.shape))
