"""A run's hyperparameters and metrics for TensorBoard's HParams dashboard.

`write_hparams(log_dir, hparams, metrics)` writes into a run's log directory what the
dashboard reads (`tensorboard.plugins.hparams.api`): the experiment (`hp.hparams_config`:
which hyperparameters and metrics are its columns) and the session (`hp.hparams`: this
run's values). The metrics' values are the run's own scalar summaries: a metric is a
(`group`, `tag`) pair, `group` the sub-directory of `log_dir` holding the scalar (e.g.
`train`, `eval`; None: `log_dir` itself) and `tag` its name. Pointing TensorBoard at a
directory of several runs compares them.

Example:
    >>> from albert_tf.training.pretrain_config import PretrainConfig
    >>> config = PretrainConfig(albert_config_file="albert_base", input_file="records/*")
    >>> values = hparam_values(config)
    >>> values["learning_rate"], values["albert_config_file"]
    (0.00176, 'albert_base')
    >>> metrics = [("train", "loss"), ("eval", "masked_lm_accuracy")]
    >>> write_hparams(f"{tmp_dir}/logs", values, metrics)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import tensorflow as tf
from tensorboard.plugins.hparams import api as hp

HParamValue = bool | int | float | str


def hparam_values(values: Any, prefix: str = "") -> dict[str, HParamValue]:
    """A dataclass's fields (or a mapping) as HParams values, names prefixed with `prefix`.

    Tuples become comma-separated strings; fields set to None are left out (no value to
    show); other values are written as text.
    """
    items = dataclasses.asdict(values) if dataclasses.is_dataclass(values) else dict(values)
    converted: dict[str, HParamValue] = {}
    for name, value in items.items():
        if value is None:
            continue
        if isinstance(value, tuple | list):
            value = ",".join(str(item) for item in value)
        elif not isinstance(value, HParamValue):
            value = str(value)
        converted[f"{prefix}{name}"] = value
    return converted


def write_hparams(
    log_dir: str,
    hparams: Mapping[str, HParamValue],
    metrics: Iterable[tuple[str | None, str]],
    trial_id: str | None = None,
) -> None:
    """Writes the experiment and this run's values into `log_dir` (see the module docstring).

    `trial_id` names the run in the dashboard (default: a hash of the values).
    """
    writer = tf.summary.create_file_writer(log_dir)
    with writer.as_default():
        hp.hparams_config(
            hparams=[hp.HParam(name) for name in sorted(hparams)],
            metrics=[
                hp.Metric(tag, group=group, display_name=f"{group}/{tag}" if group else tag)
                for group, tag in metrics
            ],
        )
        hp.hparams(dict(hparams), trial_id=trial_id)
    writer.close()
