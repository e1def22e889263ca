"""`serving_copy`: a mixed-precision model with its weights stored in the compute dtype, to serve.

Under `mixed_bfloat16`, variables are float32 and every layer call casts its weights to
bfloat16. ALBERT applies one shared block L times, so a forward pass casts each shared weight L
times: 85 million casts per call for ALBERT-base, which at batch 1 can cost more than the matmuls.
An exported model never trains, so its weights can be stored once in bfloat16 (the very values
each cast produced; LayerNorm's scale and offset, kept in float32 by the mixed policy, are
rounded too) and the SavedModel's variables are half the size. Float32 models are returned as
they are.
"""

from __future__ import annotations

import keras

# Mixed policy -> the policy that stores variables in its compute dtype.
_STORED_AS_COMPUTED = {"mixed_bfloat16": "bfloat16", "mixed_float16": "float16"}


def serving_copy(model: keras.Model) -> keras.Model:
    """`model` rebuilt with variables in its compute dtype and its weights copied (cast).

    Example:
    >>> layer = keras.layers.Dense(2, dtype="mixed_bfloat16")
    >>> model = keras.Sequential([keras.Input((3,)), layer])
    >>> copy = serving_copy(model)
    >>> copy.layers[0].kernel.dtype, model.layers[0].kernel.dtype
    ('bfloat16', 'float32')
    >>> serving_copy(keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])).dtype
    'float32'
    """
    config = keras.saving.serialize_keras_object(model)
    stored_as_computed = _replace_policies(config)
    if stored_as_computed == config:  # No mixed policy anywhere.
        return model
    copy = keras.saving.deserialize_keras_object(stored_as_computed)
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
