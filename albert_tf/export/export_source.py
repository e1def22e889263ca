"""`ExportSource`: a model to export and what came with it (tokenizer, casing, task).

Every export of a file format (TF Hub, LiteRT, ONNX) takes one; `load_export_source` reads it
from whatever albert_tf wrote:

* a fine-tuning output directory, or a converted task model (`albert-tf convert --to=albert_tf`
  writes a task model's `task.json` and `spm.model` beside its `model.keras`): the task model,
  its tokenizer, casing and task;
* a pretraining workdir or `ckpt-N` prefix: the `AlbertPretrainer` of its latest checkpoint
  (masked-LM head included; the `albert_config.json` beside it unless given);
* a `.keras` file;
* an encoder bundle, or a SavedModel export directory holding one in `keras/`: the encoder, its
  tokenizer and casing;
* a converted albert_tf directory: its `pretrainer.keras`, else its `encoder.keras`.

Hugging Face and original TF1 checkpoints are converted in memory first (`albert-tf export
--checkpoint_format=hf|tf1`: `albert_tf.export_formats`, above `albert_tf.convert`, which itself
imports this package) and their model is wrapped in the same `ExportSource`.

Illustration (not run):
    source = load_export_source("/tmp/converted_hf_classifier")
    source.kind, source.labels   # ('classifier', ['negative', 'positive'])
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import keras

from albert_tf.config import AlbertConfig
from albert_tf.errors import MissingInputError, UserError
from albert_tf.export.encoder_bundle import find_bundle_dir, load_encoder, read_tokenizer_config
from albert_tf.export.finetuned_run import (
    is_finetuned_run,
    load_finetuned_model,
    read_task_file,
    run_spm_file,
)
from albert_tf.export.model_kind import model_kind
from albert_tf.export.saved_model import check_albert_config, load_albert_model
from albert_tf.file_names import (
    ALBERT_CONFIG_FILE,
    ENCODER_FILE,
    FINETUNED_MODEL_FILE,
    PRETRAINER_FILE,
    SPM_FILE,
)
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.training.checkpointing import find_checkpoint


@dataclasses.dataclass
class ExportSource:
    """A model to export and the settings that came with it.

    Attributes:
        model: an `AlbertEncoder`, `AlbertPretrainer` or fine-tuned task model (one of
            `MODEL_KINDS`; anything else is a `UserError` here).
        spm_model_file: its SentencePiece model, or None when none came with it.
        do_lower_case: the tokenizer's casing.
        task: the `task.json` of a task model (family, labels, lengths), else None.
    """

    model: keras.Model
    spm_model_file: str | None = None
    do_lower_case: bool = True
    task: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        model_kind(self.model)  # Refuses a model no export knows, before any work.

    @property
    def kind(self) -> str:
        """The model's kind (`albert_tf.export.model_kind`)."""
        return model_kind(self.model)

    @property
    def encoder(self) -> AlbertEncoder:
        """The model's `AlbertEncoder` (the model itself for an encoder)."""
        return self.model if isinstance(self.model, AlbertEncoder) else self.model.encoder

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

    def with_tokenizer(
        self, spm_model_file: str | None = None, do_lower_case: bool | None = None
    ) -> ExportSource:
        """This source with the tokenizer and casing a user passed (None keeps its own)."""
        source = dataclasses.replace(self, spm_model_file=spm_model_file or self.spm_model_file)
        if do_lower_case is None:
            return source
        task = None if self.task is None else {**self.task, "do_lower_case": do_lower_case}
        return dataclasses.replace(source, do_lower_case=do_lower_case, task=task)


def _task_model_source(output_dir: str) -> ExportSource:
    """The task model of a finished fine-tuning run or a converted task model's directory."""
    task = read_task_file(output_dir)
    spm_model_file = run_spm_file(output_dir)
    return ExportSource(
        model=load_finetuned_model(output_dir),
        spm_model_file=spm_model_file if os.path.isfile(spm_model_file) else None,
        do_lower_case=task.get("do_lower_case", True),
        task=task,
    )


def load_export_source(
    path: str,
    spm_model_file: str | None = None,
    albert_config: AlbertConfig | str | None = None,
    do_lower_case: bool | None = None,
) -> ExportSource:
    """The model at `path` and what came with it (see the module docstring).

    `spm_model_file` and `do_lower_case`, when given, replace what came with the model;
    `albert_config` is a training checkpoint's (default: the `albert_config.json` beside it),
    and what another model's config must be.

    Raises:
        MissingInputError: nothing albert_tf can read at `path`.
        UserError: a model that is not ALBERT; a checkpoint without its config.
    """
    path = os.fspath(path)
    check_source_exists(path)
    if is_finetuned_run(path):
        source = _task_model_source(path)
    else:
        source = _model_source(path, albert_config)
    return source.with_tokenizer(spm_model_file, do_lower_case)


def check_source_exists(path: str) -> None:
    """A `MissingInputError` unless `path` is a file, a directory or a checkpoint prefix."""
    if not os.path.exists(path) and not os.path.exists(path + ".index"):
        raise MissingInputError("nothing here", where=path, fix="pass a run, model or checkpoint")


def _model_source(path: str, albert_config: AlbertConfig | str | None) -> ExportSource:
    """An encoder or pretrainer at `path`: a checkpoint (of `albert_config`, default the one
    beside it), or a `.keras` file, a bundle or a converted albert_tf directory (checked
    against `albert_config` when given)."""
    if find_checkpoint(path) is not None:
        directory = path if os.path.isdir(path) else os.path.dirname(path)
        config_file = os.path.join(directory, ALBERT_CONFIG_FILE)
        config = albert_config or (config_file if os.path.isfile(config_file) else None)
        return ExportSource(load_albert_model(path, config))
    source = _model_file_source(path)
    check_albert_config(path, source.model, albert_config)
    return source


def _model_file_source(path: str) -> ExportSource:
    """The `.keras` file at `path`, the bundle there, or a converted directory's model."""
    if os.path.isfile(path) and path.endswith(".keras"):
        return _keras_source(path)
    bundle_dir = find_bundle_dir(path)
    if bundle_dir is not None:
        encoder, _ = load_encoder(bundle_dir)
        casing = read_tokenizer_config(bundle_dir).get("do_lower_case")
        spm_model_file = os.path.join(bundle_dir, SPM_FILE)
        return ExportSource(encoder, spm_model_file, True if casing is None else casing)
    for name in (PRETRAINER_FILE, ENCODER_FILE):
        if os.path.isfile(os.path.join(path, name)):
            return _keras_source(os.path.join(path, name))
    raise MissingInputError(
        f"{path}: no ALBERT model here; pass a fine-tuning output directory (its "
        f"{FINETUNED_MODEL_FILE}), a pretraining workdir or ckpt-N prefix, an encoder bundle "
        "or export directory, or a .keras file (Hugging Face / TF1 checkpoints: "
        "--checkpoint_format=hf or tf1)."
    )


def _keras_source(path: str) -> ExportSource:
    try:
        model = keras.saving.load_model(path, compile=False)
    except (TypeError, ValueError, OSError) as error:
        raise UserError(f"{path}: not a Keras model albert_tf can load ({error}).") from error
    try:
        return ExportSource(model)
    except UserError as error:
        raise UserError(f"{path} holds {error.what}", fix=error.fix) from None
