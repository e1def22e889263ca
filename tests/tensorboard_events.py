"""What TensorBoard reads from a log directory: the HParams plugin's summaries, traces."""

from __future__ import annotations

import glob
import os
from typing import Any

import tensorflow as tf
from tensorboard.plugins.hparams import metadata


def read_hparams(log_dir: str) -> dict[str, Any]:
    """The HParams summaries written directly in `log_dir` (one run, not its sub-directories).

    Returns `{"hparams": {name: value}, "columns": [hparam names], "metrics": [(group, tag)],
    "group_name": ...}`: the session's values and the experiment's columns.
    """
    found: dict[str, Any] = {}
    for path in sorted(glob.glob(os.path.join(log_dir, "events.out.tfevents.*"))):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                content = value.metadata.plugin_data.content
                if value.tag == metadata.EXPERIMENT_TAG:
                    experiment = metadata.parse_experiment_plugin_data(content)
                    found["columns"] = [info.name for info in experiment.hparam_infos]
                    found["metrics"] = [
                        (info.name.group or None, info.name.tag) for info in experiment.metric_infos
                    ]
                elif value.tag == metadata.SESSION_START_INFO_TAG:
                    session = metadata.parse_session_start_info_plugin_data(content)
                    found["group_name"] = session.group_name
                    found["hparams"] = {
                        name: getattr(proto, proto.WhichOneof("kind"))
                        for name, proto in session.hparams.items()
                    }
    return found


def read_scalars(log_dir: str) -> dict[str, float]:
    """The last value of each scalar written directly in `log_dir`."""
    scalars = {}
    for path in sorted(glob.glob(os.path.join(log_dir, "events.out.tfevents.*"))):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.metadata.plugin_data.plugin_name == "scalars":
                    scalars[value.tag] = float(tf.make_ndarray(value.tensor))
    return scalars


def profiler_traces(log_dir: str) -> list[str]:
    """The profiler's trace files under `log_dir` (TensorBoard's Profile tab)."""
    return glob.glob(os.path.join(log_dir, "plugins", "profile", "*", "*.xplane.pb"))
