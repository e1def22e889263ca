"""`load_export_source`: what the export commands export, from any path a user gives.

One reader for every file-format export (`albert-tf export --format=onnx`, `albert-tf
export-litert`), here beside the encoder loader of fine-tuning, which it reuses: a fine-tuning
output directory or a converted task model (`model.keras` + `task.json` + `spm.model`: its task
model, tokenizer, casing and labels), a Hugging Face directory or original TF1 checkpoint
(`checkpoint_format="hf"|"tf1"`, converted on the fly: a task model with the task settings
`albert-tf convert` would write), or anything an encoder comes from (a bundle or SavedModel
export directory, an `encoder.keras`, a pretraining workdir or checkpoint:
`load_pretrained_encoder`).

Illustration (not run):
    load_export_source("/tmp/converted").task["labels"]   # ['negative', 'positive']
"""

from __future__ import annotations

import os

from albert_tf.convert.convert import converted_task_json, load_model, source_config_values
from albert_tf.convert.task_heads import task_head_for_model
from albert_tf.errors import MissingInputError, UserError
from albert_tf.export.export_source import (
    ExportSource,
    encoder_export_source,
    model_kind_name,
    task_model_source,
)
from albert_tf.export.finetuned_run import is_finetuned_run
from albert_tf.finetune.pretrained_encoder import load_pretrained_encoder, spm_beside
from albert_tf.models.pretrainer import AlbertPretrainer


def load_export_source(
    path: str,
    spm_model_file: str | None = None,
    albert_config: str | None = None,
    checkpoint_format: str = "albert_tf",
    do_lower_case: bool | None = None,
) -> ExportSource:
    """The model at `path` and what came with it (see the module docstring).

    `spm_model_file` and `do_lower_case`, when given, replace what came with the model.
    """
    if not os.path.exists(path) and not os.path.exists(path + ".index"):
        raise MissingInputError("nothing here", where=path, fix="pass a run, model or checkpoint")
    if checkpoint_format != "albert_tf":
        source = _foreign_source(path, checkpoint_format, albert_config)
    elif is_finetuned_run(path):
        source = task_model_source(path, spm_model_file)
    else:
        try:
            pretrained = load_pretrained_encoder(path, albert_config)
        except (FileNotFoundError, ValueError) as error:
            if isinstance(error, UserError):
                raise
            raise UserError(str(error), where=path) from None
        source = encoder_export_source(
            pretrained.encoder, pretrained.spm_model_file, pretrained.do_lower_case
        )
    if spm_model_file:
        source.spm_model_file = spm_model_file
    if do_lower_case is not None:
        source.do_lower_case = do_lower_case
        if source.task is not None:
            source.task = {**source.task, "do_lower_case": do_lower_case}
    return source


def _foreign_source(path: str, checkpoint_format: str, albert_config: str | None) -> ExportSource:
    """A Hugging Face or TF1 checkpoint, converted in memory."""
    model = load_model(checkpoint_format, path, albert_config)
    spm_model_file = spm_beside(path)
    if task_head_for_model(model) is not None:
        task = converted_task_json(model, source_config_values(checkpoint_format, path))
        return ExportSource(model, model_kind_name(model), spm_model_file, True, task)
    encoder = model.encoder if isinstance(model, AlbertPretrainer) else model
    return encoder_export_source(encoder, spm_model_file, None)
