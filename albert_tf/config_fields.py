"""Config fields that carry their help text and choices, and the checks every config shares.

A dataclass field declared with `option` says, in one place, what the setting means (its help
text: the command line's flags come from it, see `albert_tf.config_flags`) and, for a setting
with a fixed set of values, which ones it accepts: `check_choices(config)` checks them all, and
the flag generator turns them into an enum flag. `check_choice` and `check_range` are the one
spelling of "choose one of ..." and "must be positive / >= n / in [a, b)".

Example:
    >>> @dataclasses.dataclass(frozen=True)
    ... class Options:
    ...     optimizer: str = option("adamw", "The optimizer.", choices=("adamw", "lamb"))
    ...     steps: int = option(10, "Training steps.")
    ...
    ...     def __post_init__(self):
    ...         check_choices(self)
    ...         check_range("steps", self.steps, low=0, low_open=True)
    >>> field_help(Options, "steps")
    'Training steps.'
    >>> Options(optimizer="sgd")
    Traceback (most recent call last):
    ...
    albert_tf.errors.UserError: optimizer='sgd' is not supported, ...
    >>> Options(steps=0)
    Traceback (most recent call last):
    ...
    albert_tf.errors.UserError: steps must be positive, got 0, --steps
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from albert_tf.errors import UserError

HELP = "help"
CHOICES = "choices"
# The flag's default when it differs from the field's (e.g. `--do_train` off unless passed).
FLAG_DEFAULT = "flag_default"


def option(
    default: Any,
    help: str,  # noqa: A002 - the word every flag library uses.
    *,
    choices: Iterable[Any] | None = None,
    flag_default: Any = dataclasses.MISSING,
) -> Any:
    """A dataclass field with `default`, its `help` text and, optionally, its `choices`.

    `default` must be immutable (a tuple, not a list): configs are frozen and shared.
    """
    if isinstance(default, list | dict | set):
        raise TypeError(f"option default {default!r} is mutable; use a tuple")
    metadata: dict[str, Any] = {HELP: help}
    if choices is not None:
        metadata[CHOICES] = tuple(choices)
    if flag_default is not dataclasses.MISSING:
        metadata[FLAG_DEFAULT] = flag_default
    return dataclasses.field(default=default, metadata=metadata)


def field_metadata(config_class: type, name: str) -> Mapping[str, Any]:
    """The `option` metadata of field `name`, inherited where a subclass only changed its default.

    A subclass that writes `max_seq_length: int = 384` keeps the help text and choices its base
    declared, so they are written once.
    """
    for klass in config_class.__mro__:
        if dataclasses.is_dataclass(klass):
            for field in dataclasses.fields(klass):
                if field.name == name and field.metadata:
                    return field.metadata
    return {}


def field_help(config_class: type, name: str) -> str:
    """The help text of field `name` ("" when it has none)."""
    return field_metadata(config_class, name).get(HELP, "")


def field_choices(config_class: type, name: str) -> tuple[Any, ...] | None:
    """The values field `name` accepts, or None when any value of its type does."""
    return field_metadata(config_class, name).get(CHOICES)


def check_choice(name: str, value: Any, choices: Iterable[Any], where: str | None = None) -> None:
    """Raises a `UserError` naming `--name` unless `value` is one of `choices`."""
    choices = tuple(choices)
    if value not in choices:
        raise UserError(
            f"{name}={value!r} is not supported",
            where=where or f"--{name}",
            fix=f"choose one of {', '.join(str(choice) for choice in choices)}",
        )


def check_choices(config: Any) -> None:
    """`check_choice` for every field of the dataclass `config` declared with `choices`."""
    for field in dataclasses.fields(config):
        choices = field_choices(type(config), field.name)
        if choices is not None:
            check_choice(field.name, getattr(config, field.name), choices)


def check_range(
    name: str,
    value: float,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = True,
    why: str = "",
    where: str | None = None,
) -> None:
    """Raises a `UserError` unless `low <= value < high` (bounds open or closed as asked).

    Messages: "must be positive" (low 0, open, no high), "must be >= 3", "must be in [0, 1)".
    """
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if not (too_low or too_high):
        return
    low_text, high_text = _number(low), _number(high)
    if high is None and low == 0 and low_open:
        bound = "positive"
    elif high is None:
        bound = f"{'>' if low_open else '>='} {low_text}"
    elif low is None:
        bound = f"{'<' if high_open else '<='} {high_text}"
    else:
        bound = f"in {'(' if low_open else '['}{low_text}, {high_text}{')' if high_open else ']'}"
    reason = f" ({why})" if why else ""
    raise UserError(f"{name} must be {bound}{reason}, got {value}", where=where or f"--{name}")


def _number(value: float | None) -> str:
    """1.0 -> "1", 0.5 -> "0.5": bounds as people write them."""
    return str(int(value)) if value is not None and float(value).is_integer() else str(value)
