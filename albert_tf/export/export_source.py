"""`ExportSource`: a model to export and what came with it (tokenizer, casing, task).

Every exporter of a file format (LiteRT, ONNX) takes one; the commands build it with
`load_export_source` (`albert_tf.finetune.export_sources`) from whatever the user points at.
A task model comes from a finished fine-tuning run, and a converted one is the same thing:
`albert-tf convert --to=albert_tf` writes a task model's `task.json` and `spm.model` beside its
`model.keras` (`albert_tf.convert.convert`), so both are read here, by `task_model_source`.

Illustration (not run):
    source = task_model_source("/tmp/converted_hf_classifier")
    source.kind, source.labels   # ('classifier', ['negative', 'positive'])
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import keras

from albert_tf.export.finetuned_run import load_finetuned_model, read_task_file, run_spm_file
from albert_tf.models.classifier import AlbertClassifier


@dataclasses.dataclass
class ExportSource:
    """A model to export and the settings that came with it.

    Attributes:
        model: an `AlbertEncoder`, `AlbertPretrainer` or fine-tuned task model.
        kind: "encoder", "classifier", or the task model's class name in lower case.
        spm_model_file: its SentencePiece model, or None when none came with it.
        do_lower_case: the tokenizer's casing.
        task: the `task.json` of a task model (family, labels, lengths), else None.
    """

    model: keras.Model
    kind: str
    spm_model_file: str | None
    do_lower_case: bool = True
    task: dict[str, Any] | None = None

    @property
    def labels(self) -> list[str] | None:
        return (self.task or {}).get("labels")

    @property
    def seq_length(self) -> int | None:
        """The length the model was fine-tuned at, when known."""
        return (self.task or {}).get("max_seq_length")

    @property
    def is_pair(self) -> bool:
        return bool((self.task or {}).get("is_pair", False))

    @property
    def is_regression(self) -> bool:
        return (self.task or {}).get("problem") == "regression"


def model_kind_name(model: keras.Model) -> str:
    """ "classifier" for an `AlbertClassifier`, else the class name in lower case."""
    return "classifier" if isinstance(model, AlbertClassifier) else type(model).__name__.lower()


def task_model_source(output_dir: str, spm_model_file: str | None = None) -> ExportSource:
    """The task model of a finished fine-tuning run or a converted task model's directory."""
    task = read_task_file(output_dir)
    model = load_finetuned_model(output_dir)
    spm_model_file = spm_model_file or run_spm_file(output_dir)
    return ExportSource(
        model=model,
        kind=model_kind_name(model),
        spm_model_file=spm_model_file if os.path.isfile(spm_model_file) else None,
        do_lower_case=task.get("do_lower_case", True),
        task=task,
    )


def encoder_export_source(
    encoder: keras.Model, spm_model_file: str | None, do_lower_case: bool | None
) -> ExportSource:
    """An encoder (casing default: lowercase)."""
    return ExportSource(
        model=encoder,
        kind="encoder",
        spm_model_file=spm_model_file,
        do_lower_case=True if do_lower_case is None else do_lower_case,
    )
