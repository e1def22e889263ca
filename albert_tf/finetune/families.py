"""The task families the driver knows: one explicit table, read by everything that needs them.

`FAMILIES` names each family and where its two classes live: the `FinetuneTask` subclass
(its model, data and TensorFlow) and its `FinetuneConfig` subclass (no TensorFlow: a
command's flags and `--help` come from it). The CLI, `albert-tf export`, the conversion of
task heads, distillation and the tests all read this table; nothing registers itself on
import, and a family's module is imported only when it is asked for by name (`get_family`,
e.g. the `family` a run's `task.json` names) or by config (`family_for_config`, what
`run_finetuning(config, ...)` runs). Adding a family is one line here
(`docs/adding_a_task_family.md`).

Example:
    >>> family_names()
    ('classification', 'multiple_choice', 'span_qa', 'tagging')
    >>> family_config("tagging").__name__
    'TaggingConfig'
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import TYPE_CHECKING, Any

from albert_tf.config_fields import check_choice

if TYPE_CHECKING:  # Importing them loads TensorFlow: only when a family is asked for.
    from albert_tf.finetune.finetune_config import FinetuneConfig
    from albert_tf.finetune.task_family import FinetuneTask


@dataclasses.dataclass(frozen=True)
class FamilySource:
    """Where a family's classes live, as `"module:Class"` (imported when first asked for).

    Attributes:
        task: its `FinetuneTask` subclass (imports TensorFlow).
        config: its `FinetuneConfig` subclass (imports no TensorFlow).
    """

    task: str
    config: str


_PACKAGE = "albert_tf.finetune"

# Family name (also written to each run's `task.json`) -> where its classes live.
FAMILIES: dict[str, FamilySource] = {
    "classification": FamilySource(
        f"{_PACKAGE}.classification.classification_task:ClassificationTask",
        f"{_PACKAGE}.classification.classification_config:ClassificationConfig",
    ),
    "multiple_choice": FamilySource(
        f"{_PACKAGE}.multiple_choice.multiple_choice_task:MultipleChoiceTask",
        f"{_PACKAGE}.multiple_choice.multiple_choice_config:MultipleChoiceConfig",
    ),
    "span_qa": FamilySource(
        f"{_PACKAGE}.span_qa.span_qa_task:SpanQaTask",
        f"{_PACKAGE}.span_qa.span_qa_config:SpanQaConfig",
    ),
    "tagging": FamilySource(
        f"{_PACKAGE}.tagging.tagging_task:TaggingTask",
        f"{_PACKAGE}.tagging.tagging_config:TaggingConfig",
    ),
}


def family_names() -> tuple[str, ...]:
    """The families' names, sorted."""
    return tuple(sorted(FAMILIES))


def _source(name: str) -> FamilySource:
    """The table's row of `name`; a one-line `UserError` listing the families otherwise."""
    check_choice("family", name, family_names())
    return FAMILIES[name]


def _load(reference: str) -> Any:
    """The object a `"module:Class"` reference names, its module imported if not yet."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


def family_config(name: str) -> type[FinetuneConfig]:
    """The config class of family `name`, without importing the family (nor TensorFlow)."""
    return _load(_source(name).config)


def get_family(name: str) -> type[FinetuneTask]:
    """The family named `name` (its module imported now); a `UserError` listing the others.

    Raises:
        TypeError: the class the table points at disagrees with its row (its `name` or its
            `config_class`): a mistake in the table or in the family's class keywords.
    """
    source = _source(name)
    family, config_class = _load(source.task), _load(source.config)
    declared = (getattr(family, "name", None), getattr(family, "config_class", None))
    if declared != (name, config_class):
        raise TypeError(
            f"{family.__qualname__} is not the {name!r} family of {config_class.__name__} "
            f"that albert_tf.finetune.families.FAMILIES says it is"
        )
    return family


def family_for_config(config: Any) -> type[FinetuneTask]:
    """The family whose config class `config` is (or derives from); imports only that family.

    Raises:
        TypeError: no family of the table takes it.
    """
    configs = {name: family_config(name) for name in family_names()}
    for klass in type(config).__mro__:
        for name, config_class in configs.items():
            if config_class is klass:
                return get_family(name)
    raise TypeError(
        f"no task family takes a {type(config).__name__}: add its family to "
        f"albert_tf.finetune.families.FAMILIES (families: {', '.join(family_names())})"
    )
