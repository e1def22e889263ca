"""The files of a fine-tuning run's output directory: written by the run, read by exports.

    finetune_config.json   the run's settings
    task.json              what the task is (labels, lengths, casing): its family's typed
                           `TaskInfo` (`albert_tf.finetune.task_family`) as JSON, and the
                           family name
    spm.model              the tokenizer the model was fine-tuned with
    model.keras            the fine-tuned Keras model (written last, atomically)

Fine-tuning (`albert_tf.finetune.driver`) writes them; it and the exports of a finished run
(SavedModel, LiteRT) read them here, below both, so data flows one way. Loading `model.keras`
needs its Keras classes registered: importing `albert_tf.models` registers the task models
albert_tf ships; a family with its own model class must be imported first.

Illustration (not run):
    task = read_task_file("/tmp/sst2_run")                  # {"task": "sst-2", "labels": ...}
    model = load_finetuned_model("/tmp/sst2_run")
"""

from __future__ import annotations

import json
import os
from typing import Any

import keras
import tensorflow as tf

import albert_tf.models  # noqa: F401  (registers the task model classes for loading)
from albert_tf.atomic_files import atomic_copy_file, atomic_output_file, atomic_write_text
from albert_tf.errors import UserError
from albert_tf.file_names import FINETUNE_CONFIG_FILE, FINETUNED_MODEL_FILE, SPM_FILE, TASK_FILE

_NOT_A_RUN_FIX = "run with --do_train first, or point --output_dir at a finished run"


def write_run_files(
    output_dir: str, config_json: str, task_info: dict[str, Any], spm_model_file: str
) -> None:
    """Writes `finetune_config.json`, `task.json` and `spm.model` (after inputs are checked)."""
    os.makedirs(output_dir, exist_ok=True)
    atomic_write_text(os.path.join(output_dir, FINETUNE_CONFIG_FILE), config_json)
    write_task_file(output_dir, task_info)
    atomic_copy_file(spm_model_file, run_spm_file(output_dir))


def write_task_file(output_dir: str, task_info: dict[str, Any]) -> None:
    """(Re)writes `task.json` atomically (a run may refine it, e.g. a threshold chosen on dev)."""
    atomic_write_text(os.path.join(output_dir, TASK_FILE), json.dumps(task_info, indent=2))


def is_finetuned_run(path: str) -> bool:
    """Whether `path` is a fine-tuning output directory holding a finished model."""
    return os.path.isfile(os.path.join(path, FINETUNED_MODEL_FILE))


def read_task_file(output_dir: str) -> dict[str, Any]:
    """The `task.json` a training run wrote into `output_dir`."""
    path = _finished_run_file(output_dir, TASK_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            values = json.load(handle)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UserError(f"not JSON ({error})", where=path, fix=_NOT_A_RUN_FIX) from None
    if not isinstance(values, dict):
        raise UserError("not a JSON object", where=path, fix=_NOT_A_RUN_FIX)
    return values


def save_finetuned_model(model: keras.Model, output_dir: str) -> str:
    """Writes `model.keras` into `output_dir` atomically; returns its path."""
    path = os.path.join(output_dir, FINETUNED_MODEL_FILE)
    with atomic_output_file(path) as temp_path:
        model.save(temp_path)
    return path


def load_finetuned_model(
    output_dir: str, strategy: tf.distribute.Strategy | None = None
) -> keras.Model:
    """The `model.keras` of a finished run, built under `strategy` (default: the current one)."""
    path = _finished_run_file(output_dir, FINETUNED_MODEL_FILE)
    with (strategy or tf.distribute.get_strategy()).scope():
        return keras.saving.load_model(path, compile=False)


def run_spm_file(output_dir: str) -> str:
    """The tokenizer file a training run copied into `output_dir`."""
    return os.path.join(output_dir, SPM_FILE)


def _finished_run_file(output_dir: str, name: str) -> str:
    path = os.path.join(output_dir, name)
    if not os.path.isfile(path):
        what = f"fine-tuned {name}" if name == FINETUNED_MODEL_FILE else name
        raise UserError(f"no {what}", where=output_dir, fix=_NOT_A_RUN_FIX)
    return path
