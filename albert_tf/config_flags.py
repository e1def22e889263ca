"""Absl flags generated from config dataclasses, and the configs read back from them.

One flag per field, typed by the field's annotation, defaulted by its default and documented
by its help text (`albert_tf.config_fields.option`): a script's flags cannot drift from the
config it builds. A script may combine several dataclasses (a task's config and runtime
options, say): `define_flags` each one, then `config_from_flags` builds each from the flags.
Field types map to flags as bool -> `DEFINE_bool`, int -> `DEFINE_integer`, float ->
`DEFINE_float`, tuple -> `DEFINE_list`, str -> `DEFINE_string` (`DEFINE_enum` when the field
declares `choices`); `float | None` and the like allow the flag to stay unset (None).

Example:
    >>> from albert_tf.config_fields import option
    >>> @dataclasses.dataclass(frozen=True)
    ... class Options:
    ...     steps: int = option(10, "Training steps.")
    ...     labels: tuple[str, ...] = option((), "Class names.")
    ...     mode: str = option("fast", "How to run.", choices=("fast", "exact"))
    >>> values = flags.FlagValues()
    >>> define_flags(Options, values)
    >>> _ = values(["prog", "--steps=3", "--labels=a,b"])
    >>> config_from_flags(Options, values)
    Options(steps=3, labels=('a', 'b'), mode='fast')
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

from absl import flags

from albert_tf.config_fields import FLAG_DEFAULT, field_choices, field_help, field_metadata


def define_flags(
    config_class: type, flag_values: flags.FlagValues = flags.FLAGS, skip: tuple[str, ...] = ()
) -> None:
    """Defines a flag per field of `config_class` (but `skip`, and names defined already).

    A name another config of the same script defined already is left as it is: the two
    configs read the same flag.

    Raises:
        TypeError: a field without help text, or of a type no flag holds.
    """
    hints = typing.get_type_hints(config_class)
    for field in dataclasses.fields(config_class):
        name = field.name
        if name in skip or name in flag_values:
            continue
        help_text = field_help(config_class, name)
        if not help_text:
            raise TypeError(f"{config_class.__name__}.{name} has no help text (use option())")
        default = field_metadata(config_class, name).get(FLAG_DEFAULT, field.default)
        if default is dataclasses.MISSING:  # A required field: the script marks it required.
            default = None
        _define(name, _flag_type(hints[name]), default, help_text, config_class, flag_values)


def config_from_flags(config_class: type, flag_values: flags.FlagValues = flags.FLAGS, **overrides):
    """A `config_class` of the parsed flags' values (list flags as tuples), with `overrides`."""
    hints = typing.get_type_hints(config_class)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(config_class):
        if field.name in overrides or field.name not in flag_values:
            continue
        value = flag_values[field.name].value
        if _flag_type(hints[field.name]) is tuple and value is not None:
            value = tuple(value)
        values[field.name] = value
    return config_class(**values, **overrides)


def _flag_type(annotation: Any) -> type:
    """bool, int, float, str or tuple: the type a flag of `annotation` holds (None dropped)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        kinds = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(kinds) == 1:
            return _flag_type(kinds[0])
    origin = typing.get_origin(annotation) or annotation
    if origin in (bool, int, float, str, tuple):
        return origin
    raise TypeError(f"no flag type for {annotation!r}")


def _define(name, kind, default, help_text, config_class, flag_values) -> None:
    choices = field_choices(config_class, name)
    if choices is not None and kind is str:
        flags.DEFINE_enum(name, default, list(choices), help_text, flag_values=flag_values)
    elif kind is bool:
        flags.DEFINE_bool(name, default, help_text, flag_values=flag_values)
    elif kind is int:
        flags.DEFINE_integer(name, default, help_text, flag_values=flag_values)
    elif kind is float:
        flags.DEFINE_float(name, default, help_text, flag_values=flag_values)
    elif kind is tuple:
        flags.DEFINE_list(name, list(default), help_text, flag_values=flag_values)
    else:
        flags.DEFINE_string(name, default, help_text, flag_values=flag_values)
