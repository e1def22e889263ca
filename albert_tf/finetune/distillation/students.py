"""The student of a distillation: a smaller ALBERT encoder initialized from the teacher's.

Two kinds, combinable:

* fewer layers (`student_layers=K`): ALBERT's shared block applied K times instead of L. With
  cross-layer sharing (one group) this adds no parameter: the student is the teacher's own
  weights, run K times, which costs about K/L of the teacher's encoder FLOPs.
* a smaller shape (`student_config`: `hidden_size`, `num_attention_heads`,
  `intermediate_size`, `embedding_size`, `num_hidden_layers` overrides of the teacher's
  config). Each weight is initialized from the teacher's of the same original (TF1) name: the
  same value where the shapes agree, its leading slice where the student's is smaller in some
  dimension (the first heads, the first hidden units; "weight selection"), a fresh value
  otherwise.

Example:
    >>> from albert_tf.config import AlbertConfig
    >>> teacher = AlbertConfig.preset("albert_tiny")
    >>> student_config(teacher, layers=2).num_hidden_layers
    2
    >>> student_config(teacher, overrides=("hidden_size=64", "intermediate_size=256")).hidden_size
    64
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import keras
import numpy as np

from albert_tf.config import AlbertConfig
from albert_tf.convert.weight_names import NamedWeight, named_weights
from albert_tf.errors import UserError

# The AlbertConfig fields a student may change, each no larger than the teacher's.
SHAPE_FIELDS = (
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "intermediate_size",
    "embedding_size",
)
STUDENT_CONFIG_FLAG = "--student_config"


def student_config(
    teacher: AlbertConfig, layers: int = 0, overrides: Sequence[str] = ()
) -> AlbertConfig:
    """The teacher's config with `overrides` (`field=value`) and `layers` blocks applied.

    Raises:
        UserError: an unknown or unchangeable field, or a student no smaller than the teacher
            (some dimension larger, or none smaller).
    """
    changes = _parse_overrides(overrides)
    if layers:
        changes["num_hidden_layers"] = layers
    groups = teacher.num_hidden_groups
    changes.setdefault("num_hidden_groups", groups)
    config = teacher.replace(**changes)
    larger = [name for name in SHAPE_FIELDS if getattr(config, name) > getattr(teacher, name)]
    smaller = [name for name in SHAPE_FIELDS if getattr(config, name) < getattr(teacher, name)]
    if larger or not smaller:
        shape = ", ".join(f"{name}={getattr(teacher, name)}" for name in SHAPE_FIELDS)
        what = f"{', '.join(larger)} larger than" if larger else "the same shape as"
        raise UserError(
            f"the student has {what} the teacher's ({shape})",
            where="--student_layers" if "num_hidden_layers" in larger else STUDENT_CONFIG_FLAG,
            fix="make the student smaller: fewer --student_layers or a smaller --student_config",
        )
    return config


def _parse_overrides(overrides: Sequence[str]) -> dict[str, int]:
    """`("hidden_size=128", ...)` -> `{"hidden_size": 128}` (shape fields only)."""
    changes = {}
    for item in overrides:
        name, _, value = item.partition("=")
        name = name.strip()
        if name not in SHAPE_FIELDS or not value.strip().isdigit():
            raise UserError(
                f"{item!r} is not a shape override",
                where=STUDENT_CONFIG_FLAG,
                fix=f"pass field=integer pairs of {', '.join(SHAPE_FIELDS)}",
            )
        changes[name] = int(value)
    return changes


def initialize_from_teacher(student: keras.Model, teacher: keras.Model) -> dict[str, int]:
    """Sets every weight of `student` (a task model) from `teacher`'s of the same name.

    Same shape: copied; smaller in some dimension: the teacher's leading slice; otherwise (or
    a name the teacher lacks) left as built.

    Returns:
        How many weights were `copied`, `sliced` and left `fresh`.
    """
    source = {
        _name(weight): weight for weight in named_weights(teacher) if weight.variable is not None
    }
    counts = {"copied": 0, "sliced": 0, "fresh": 0}
    for weight in named_weights(student):
        if weight.variable is None:
            continue
        match = source.get(_name(weight))
        value = None if match is None else match.value()
        if value is not None and value.shape == weight.shape:
            counts["copied"] += 1
        elif value is not None and _fits(weight.shape, value.shape):
            value = value[tuple(slice(0, size) for size in weight.shape)]
            counts["sliced"] += 1
        else:
            counts["fresh"] += 1
            continue
        weight.assign(np.ascontiguousarray(value))
    logging.info("Student weights from the teacher: %s.", counts)
    return counts


def _name(weight: NamedWeight) -> str:
    return weight.tf1_name or weight.hf_name


def _fits(shape: tuple[int, ...], source: tuple[int, ...]) -> bool:
    return len(shape) == len(source) and all(s <= t for s, t in zip(shape, source, strict=True))


def describe(config: AlbertConfig) -> dict[str, int]:
    """The shape fields of `config` (what `distillation.json` records of the student)."""
    return {name: getattr(config, name) for name in SHAPE_FIELDS}
