"""The task families the driver knows, by name and by config class.

A family registers itself where it is defined: a `FinetuneTask` subclass given a name
(`class TaggingTask(FinetuneTask, family="tagging", ...)`) calls `register_family`, so importing
it is enough, and `run_finetuning(config, ...)` then finds it by the type of `config`. The
built-in families are defined in their `<family>_task.py`
(`albert_tf.finetune.classification.classification_task`, ...), which their scripts and public
functions import.

Example:
    >>> import albert_tf.finetune.tagging.tagging_task
    >>> get_family("tagging").config_class.__name__
    'TaggingConfig'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from albert_tf.config_fields import check_choice

if TYPE_CHECKING:  # The families' base class registers them: no import back at run time.
    from albert_tf.finetune.task_family import FinetuneTask

_FAMILIES: dict[str, type[FinetuneTask]] = {}


def register_family(family: type[FinetuneTask]) -> type[FinetuneTask]:
    """Registers `family` under `family.name` (`FinetuneTask` subclasses with a name do)."""
    for attribute in ("name", "config_class", "info_class"):
        if not hasattr(family, attribute):
            raise TypeError(f"task family {family.__name__} has no {attribute}")
    for other in _FAMILIES.values():
        if other is not family and family.name == other.name:
            raise ValueError(f"a task family named {family.name!r} exists: {other.__qualname__}")
        if other is not family and family.config_class is other.config_class:
            raise ValueError(f"{other.__qualname__} takes {family.config_class.__name__} already")
    _FAMILIES[family.name] = family
    return family


def unregister_family(family: type[FinetuneTask]) -> None:
    """Removes `family` from the registry (e.g. a family a test registered for itself)."""
    if _FAMILIES.get(family.name) is family:
        del _FAMILIES[family.name]


def family_names() -> tuple[str, ...]:
    """The registered families' names, sorted."""
    return tuple(sorted(_FAMILIES))


def get_family(name: str) -> type[FinetuneTask]:
    """The family registered as `name`; a `UserError` listing the others otherwise."""
    check_choice("family", name, family_names())
    return _FAMILIES[name]


def family_for_config(config: Any) -> type[FinetuneTask]:
    """The family whose `config_class` `config` is (or derives from).

    Raises:
        TypeError: no registered family takes it (import the module that defines the family).
    """
    for klass in type(config).__mro__:
        for family in _FAMILIES.values():
            if family.config_class is klass:
                return family
    raise TypeError(
        f"no task family takes a {type(config).__name__}: import the module that registers it "
        f"(registered: {', '.join(family_names()) or 'none'})"
    )
