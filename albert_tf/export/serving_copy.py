"""`serving_copy`: the model an export serves: plain chains, weights in the compute dtype.

What a SavedModel holds follows from the export's own arguments, not from how the caller's
model object was trained: a model that computes other chains than the plain ones
(`albert_tf.models.use_chains`) is served through a copy built from its config, which computes
the plain ones. Under `mixed_bfloat16`, variables are float32 and every layer call casts its weights
to bfloat16; ALBERT applies one shared block L times, so a forward pass would cast each shared
weight L times (85 million casts per call for ALBERT-base, more than the matmuls at batch 1).
An exported model never trains, so with `stored_as_computed` its weights are stored once in the
compute dtype (the very values each cast produced; LayerNorm's scale and offset, kept in
float32 by the mixed policy, are rounded too) and the SavedModel's variables are half the size.
"""

from __future__ import annotations

import keras

from albert_tf.models.chains import PLAIN, chain_layers

# Mixed policy -> the policy that stores variables in its compute dtype.
_STORED_AS_COMPUTED = {"mixed_bfloat16": "bfloat16", "mixed_float16": "float16"}


def serving_copy(model: keras.Model, stored_as_computed: bool = True) -> keras.Model:
    """`model` rebuilt from its config (variables in its compute dtype where
    `stored_as_computed`) with its weights copied (cast); `model` itself where that would
    change nothing (plain chains, and no mixed policy to store as computed).

    Example:
    >>> layer = keras.layers.Dense(2, dtype="mixed_bfloat16")
    >>> model = keras.Sequential([keras.Input((3,)), layer])
    >>> copy = serving_copy(model)
    >>> copy.layers[0].kernel.dtype, model.layers[0].kernel.dtype
    ('bfloat16', 'float32')
    >>> serving_copy(model, stored_as_computed=False) is model
    True
    """
    config = keras.saving.serialize_keras_object(model)
    stored = _replace_policies(config) if stored_as_computed else config
    if stored == config and all(layer.chains is PLAIN for layer in chain_layers(model)):
        return model
    copy = keras.saving.deserialize_keras_object(stored)
    if not copy.built:
        copy.build_from_config(model.get_build_config())
    copy.set_weights(model.get_weights())
    return copy


def _replace_policies(config):
    """The serialized config with every mixed policy name (a string anywhere in it) replaced."""
    if isinstance(config, dict):
        return {key: _replace_policies(value) for key, value in config.items()}
    if isinstance(config, list):
        return [_replace_policies(value) for value in config]
    if isinstance(config, str):
        return _STORED_AS_COMPUTED.get(config, config)
    return config
