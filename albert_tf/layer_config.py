"""`ArgumentsConfig`: a Keras layer's config is its constructor's named arguments.

keras-hub writes every layer's `get_config` by hand, a second list of the constructor's
arguments that a new argument can be left out of (the layer then saves, and loads back with the
default, silently). Here the signature is the one list: each named argument is read back from
the attribute of the same name, so the config is complete by construction and its keys are the
arguments' names, which `.keras` files of earlier runs hold.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

import keras


class ArgumentsConfig:
    """Mixin, before `keras.layers.Layer`: `get_config` is the base config plus each argument.

    Every named argument `x` of the class's `__init__` (not `**kwargs`, which the base config
    covers) is saved as `self.x`; a Keras layer there (a sub-layer) is serialized, and the
    constructor takes that dict back (`keras.saving.deserialize_keras_object`). An argument in
    `config_excludes` is the subclass's to save (a reference that the owner passes again on
    load, or one saved another way).

    Example:
    >>> class Scale(ArgumentsConfig, keras.layers.Layer):
    ...     def __init__(self, factor: float = 2.0, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.factor = factor
    >>> Scale(3.0, name="scale").get_config()["factor"]
    3.0
    """

    config_excludes: ClassVar[tuple[str, ...]] = ()

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        for name in _named_arguments(type(self)):
            if name not in self.config_excludes:
                value = getattr(self, name)
                if isinstance(value, keras.layers.Layer):
                    value = keras.saving.serialize_keras_object(value)
                config[name] = value
        return config


def _named_arguments(cls: type) -> list[str]:
    """The names of `cls.__init__`'s arguments, in order, but `self`, `*args` and `**kwargs`."""
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return [parameter.name for parameter in parameters if parameter.kind in named]
