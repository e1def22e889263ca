"""`ArgumentsConfig`: a Keras layer's config is its constructor's named arguments.

keras-hub writes every layer's `get_config` by hand, a second list of the constructor's
arguments that a new argument can be left out of (the layer then saves, and loads back with the
default, silently), and a third in `__init__`'s `self.x = x` lines. Here the signature is the one
list: `store_arguments` keeps each named argument as the attribute of the same name and
`arguments_config` reads them back, so the config is complete by construction and its keys are
the arguments' names, which `.keras` files of earlier runs hold. Both serve any Keras object
with a `get_config` (a learning-rate schedule too); `ArgumentsConfig` applies them to a layer.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, ClassVar

import keras


class ArgumentsConfig:
    """Mixin, before `keras.layers.Layer`: `get_config` is the base config plus each argument.

    Every named argument `x` of the class's `__init__` (not `**kwargs`, which the base config
    covers) is kept as `self.x` (`store_arguments`, or by hand where the layer resolves it); a
    Keras layer there (a sub-layer) is serialized, and the constructor takes that dict back
    (`keras.saving.deserialize_keras_object`).
    An argument in `config_excludes` is the subclass's to keep and save (a reference that the
    owner passes again on load, or one saved another way).

    Example:
    >>> class Scale(ArgumentsConfig, keras.layers.Layer):
    ...     def __init__(self, factor: float = 2.0, offset: float = 0.0, **kwargs):
    ...         super().__init__(**kwargs)
    ...         store_arguments(self, locals())
    >>> config = Scale(3.0, name="scale").get_config()
    >>> config["factor"], config["offset"]
    (3.0, 0.0)
    """

    config_excludes: ClassVar[tuple[str, ...]] = ()

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), **arguments_config(self)}


def store_arguments(obj: Any, arguments: Mapping[str, Any]) -> None:
    """Sets `obj.x = arguments["x"]` (`__init__`'s `locals()`) for each named argument `x`.

    Called in `__init__` once the base class is initialized; an attribute derived from an
    argument (a default resolved) is set after it. `config_excludes` are left to the class.
    """
    for name in _saved_arguments(type(obj)):
        setattr(obj, name, arguments[name])


def arguments_config(obj: Any) -> dict[str, Any]:
    """Each named argument of `type(obj).__init__` -> `obj`'s attribute of that name."""
    config = {}
    for name in _saved_arguments(type(obj)):
        value = getattr(obj, name)
        if isinstance(value, keras.layers.Layer):
            value = keras.saving.serialize_keras_object(value)
        config[name] = value
    return config


def _saved_arguments(cls: type) -> list[str]:
    """`cls.__init__`'s arguments, in order, but `self`, `*args`, `**kwargs` and the excluded."""
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    excludes = getattr(cls, "config_excludes", ())
    return [p.name for p in parameters if p.kind in named and p.name not in excludes]
