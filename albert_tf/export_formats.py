"""The export formats, one table: `albert-tf export --format=NAME` dispatches through it.

Each entry of `FORMATS` is an `ExportFormat`: its name, a one-line description (the command's
`--format` help), the options it reads, and `export(request) -> path`. The command builds one
`ExportRequest` from its flags and calls the chosen entry; `albert-tf export-litert` is the
`litert` entry under its former flag names. This module imports no TensorFlow: the command
offers the names and help before anything loads, and each entry imports its exporter when it
runs. The file formats (tfhub, litert, onnx) export the `ExportSource` of `load_export_source`
(`albert_tf.export.export_source`), or, for `--checkpoint_format=hf|tf1`, the model
`albert_tf.convert` converts in memory. It is a top-level module, not part of
`albert_tf.export`, because the entries reach above that package: keras_hub and the converted
sources are `albert_tf.convert`'s, and a run's SavedModel is its family's, from
`albert_tf.finetune` (both of which import `albert_tf.export`); only the commands import it.

Example:
    >>> [entry.name for entry in FORMATS]
    ['saved_model', 'tfhub', 'keras_hub', 'litert', 'onnx']
    >>> format_named("litert").options
    ('seq_length', 'batch_sizes', 'quantizations', 'inputs')
    >>> format_named("tflite")
    Traceback (most recent call last):
    ...
    albert_tf.errors.UserError: unknown export format 'tflite', --format, use one of ...
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from albert_tf.atomic_files import refuse_existing
from albert_tf.config_fields import option
from albert_tf.errors import UserError
from albert_tf.runtime.runtime import Runtime

if TYPE_CHECKING:
    from albert_tf.export.export_source import ExportSource


@dataclasses.dataclass(frozen=True)
class ExportOptions:
    """The per-format options, one flag each (`define_flags(ExportOptions)`): `albert-tf
    export` and `export-litert` define them from here, so their names and help agree."""

    seq_length: int | None = option(
        None,
        "Fixed sequence length of the exported inputs (default: a fine-tuning run's, else 128; "
        "tfhub: else the model's max_position_embeddings when smaller).",
    )
    quantizations: tuple[str, ...] = option(
        (),
        "Weight formats, a file each: litert float32,float16,int8 (the default); onnx "
        "float32,int8 (the default).",
    )
    batch_sizes: tuple[str, ...] = option(("1",), "litert: fixed batch sizes, a file each.")
    inputs: tuple[str, ...] = option(("ids", "text"), "litert: input variants: ids, text.")
    top_k: int = option(5, "saved_model: candidates per [MASK] in the fill_mask signature.")


@dataclasses.dataclass(frozen=True)
class ExportRequest:
    """One export: the source, where to write it, and the settings every format may read.

    Attributes:
        checkpoint: a fine-tuning run or converted task model, an encoder bundle or export,
            a `.keras` file, a pretraining workdir or checkpoint prefix, or (with
            `checkpoint_format`) a Hugging Face directory or TF1 checkpoint.
        export_dir: the directory to create.
        runtime: the speed-only forms of a SavedModel's signatures (saved_model), as the
            command resolved them.
        checkpoint_format: "albert_tf", "hf" or "tf1".
        albert_config_file: the config of a training checkpoint (a file or preset name).
        spm_model_file: the SentencePiece model; default: the one that came with the source.
        do_lower_case: the casing; None keeps the source's (saved_model: lowercase).
        overwrite: replace an existing `export_dir` once the new one is complete.
        options: the per-format options (`ExportOptions`).
    """

    checkpoint: str
    export_dir: str
    runtime: Runtime
    checkpoint_format: str = "albert_tf"
    albert_config_file: str | None = None
    spm_model_file: str | None = None
    do_lower_case: bool | None = None
    overwrite: bool = False
    options: ExportOptions = ExportOptions()


class ExportFormat(Protocol):
    """What the table holds per format."""

    name: str
    description: str
    options: tuple[str, ...]  # The `ExportOptions` fields it reads.

    def export(self, request: ExportRequest) -> str:
        """Writes `request.export_dir`; returns its path."""
        ...


@dataclasses.dataclass(frozen=True)
class Format:
    """An `ExportFormat` whose export is a function of this module (which imports its
    exporter, and so TensorFlow, only when it runs)."""

    name: str
    description: str
    options: tuple[str, ...]
    exporter: Callable[[ExportRequest], str]

    def export(self, request: ExportRequest) -> str:
        """Writes `request.export_dir` with `exporter`; returns its path."""
        return self.exporter(request)


def _saved_model(request: ExportRequest) -> str:
    """A fine-tuning run's (or converted task model's) family SavedModel, else the encoder's
    or pretrainer's text signatures (`export_saved_model`)."""
    from albert_tf.export.finetuned_run import is_finetuned_run  # Loads TensorFlow.

    if request.checkpoint_format == "albert_tf" and is_finetuned_run(request.checkpoint):
        # The run's task.json names its family; the driver imports it from the families' table.
        from albert_tf.finetune.driver import export_finished_run

        return export_finished_run(
            request.checkpoint, request.export_dir, request.overwrite, runtime=request.runtime
        )
    if request.checkpoint_format != "albert_tf":
        raise UserError(
            f"--checkpoint_format={request.checkpoint_format} needs another --format (tfhub, "
            "keras_hub, litert, onnx); for --format=saved_model convert it first (albert-tf "
            "convert --to=albert_tf)."
        )
    if not request.spm_model_file:
        raise UserError("--spm_model_file is required with --format=saved_model.")
    from albert_tf.export.saved_model import export_saved_model  # Loads TensorFlow.

    return export_saved_model(
        request.export_dir,
        request.checkpoint,
        request.spm_model_file,
        albert_config=request.albert_config_file,
        seq_length=request.options.seq_length or 128,
        do_lower_case=request.do_lower_case is not False,
        top_k=request.options.top_k,
        overwrite=request.overwrite,
        runtime=request.runtime,
    )


def _tfhub(request: ExportRequest) -> str:
    """The TF Hub pair of the source's encoder (`export_tfhub`)."""
    from albert_tf.export.tfhub.export import export_tfhub  # Loads TensorFlow.

    source = _load_source(request)
    return export_tfhub(
        request.export_dir,
        source,
        seq_length=request.options.seq_length,
        overwrite=request.overwrite,
    )


def _keras_hub(request: ExportRequest) -> str:
    """A keras-hub preset: what `albert-tf convert --to=keras_hub` writes of the same input."""
    from albert_tf.convert.convert import convert_checkpoint  # Loads TensorFlow.

    return convert_checkpoint(
        from_format=request.checkpoint_format,
        input_path=request.checkpoint,
        to_format="keras_hub",
        output_path=request.export_dir,
        config=request.albert_config_file,
        spm_model_file=request.spm_model_file,
        overwrite=request.overwrite,
        do_lower_case=request.do_lower_case is not False,  # convert's default: lowercase.
        seq_length=request.options.seq_length,
    )


def _litert(request: ExportRequest) -> str:
    """LiteRT files of the source's task model or encoder (`export_litert`)."""
    from albert_tf.export.litert.export import export_litert  # Loads TensorFlow.

    batch_sizes = parse_batch_sizes(request.options.batch_sizes)
    source = _load_source(request)
    quantizations = request.options.quantizations
    return export_litert(
        request.export_dir,
        source,
        seq_length=request.options.seq_length,
        batch_sizes=batch_sizes,
        inputs=request.options.inputs,
        overwrite=request.overwrite,
        **({"quantizations": quantizations} if quantizations else {}),
    )


def _onnx(request: ExportRequest) -> str:
    """ONNX files of the source's task model or encoder (`export_onnx`)."""
    from albert_tf.export.onnx.export import (  # Loads TensorFlow.
        QUANTIZATIONS,
        check_quantizations,
        export_onnx,
    )

    quantizations = request.options.quantizations or QUANTIZATIONS
    check_quantizations(quantizations)  # Before the (slow) load.
    refuse_existing(os.path.abspath(request.export_dir), request.overwrite)
    source = _load_source(request)
    return export_onnx(
        request.export_dir, source, quantizations=quantizations, overwrite=request.overwrite
    )


def _load_source(request: ExportRequest) -> ExportSource:
    """The model at `request.checkpoint` with the tokenizer and casing it asks for: an albert_tf
    path's (`load_export_source`), or a Hugging Face or TF1 checkpoint's, converted in memory.
    A file it cannot read is a `UserError` naming it."""
    from albert_tf.export.export_source import load_export_source  # Loads TensorFlow.

    try:
        if request.checkpoint_format != "albert_tf":
            source = _converted_source(request)
            return source.with_tokenizer(request.spm_model_file, request.do_lower_case)
        return load_export_source(
            request.checkpoint,
            request.spm_model_file,
            request.albert_config_file,
            request.do_lower_case,
        )
    except (FileNotFoundError, ValueError) as error:
        if isinstance(error, UserError):
            raise
        raise UserError(str(error), where=request.checkpoint) from None


def _converted_source(request: ExportRequest) -> ExportSource:
    """A Hugging Face or TF1 checkpoint as albert_tf's model (pretraining heads kept), the
    SentencePiece model beside it and, for a task model, the `task.json` `albert-tf convert`
    would write."""
    from albert_tf.convert.convert import (  # Loads TensorFlow.
        converted_task_json,
        load_model,
        source_config_values,
    )
    from albert_tf.convert.task_heads import task_head_for_model
    from albert_tf.export.export_source import ExportSource, check_source_exists
    from albert_tf.finetune.pretrained_encoder import spm_beside

    path, checkpoint_format = request.checkpoint, request.checkpoint_format
    check_source_exists(path)
    model = load_model(checkpoint_format, path, request.albert_config_file)
    task = None
    if task_head_for_model(model) is not None:
        task = converted_task_json(model, source_config_values(checkpoint_format, path))
    return ExportSource(model, spm_beside(path), task=task)


def parse_batch_sizes(values: Sequence[str | int]) -> tuple[int, ...]:
    """`--batch_sizes` as integers; a `UserError` for anything else."""
    try:
        return tuple(int(value) for value in values)
    except ValueError as error:
        raise UserError(str(error), where="--batch_sizes", fix="pass integers, e.g. 1,8") from None


# The formats, in the order `--format`'s help lists them; the first is the default.
FORMATS: tuple[ExportFormat, ...] = (
    Format(
        "saved_model",
        "one SavedModel that tokenizes in the graph (text signatures, TF Serving warm-up)",
        ("seq_length", "top_k"),
        _saved_model,
    ),
    Format(
        "tfhub",
        "the TF Hub / Kaggle Models pair, preprocessor/ and a trainable encoder/",
        ("seq_length",),
        _tfhub,
    ),
    Format(
        "keras_hub",
        "a keras-hub preset (AlbertBackbone or AlbertTextClassifier), as convert --to=keras_hub",
        ("seq_length",),
        _keras_hub,
    ),
    Format(
        "litert",
        "LiteRT (TFLite) files for phones, ids or text in (as export-litert)",
        ("seq_length", "batch_sizes", "quantizations", "inputs"),
        _litert,
    ),
    Format(
        "onnx",
        "ONNX files for ONNX Runtime and OpenVINO on CPUs, ids in",
        ("quantizations",),
        _onnx,
    ),
)


def format_names() -> list[str]:
    """The names of `FORMATS`, the choices of `--format`."""
    return [entry.name for entry in FORMATS]


def format_help() -> str:
    """`--format`'s help: one clause per format."""
    return "; ".join(f"{entry.name}: {entry.description}" for entry in FORMATS) + "."


def format_named(name: str) -> ExportFormat:
    """The entry of `FORMATS` called `name`."""
    for entry in FORMATS:
        if entry.name == name:
            return entry
    raise UserError(
        f"unknown export format {name!r}", where="--format", fix=f"use one of {format_names()}"
    )


def export(format_name: str, request: ExportRequest) -> str:
    """Exports `request` as the format `format_name`; returns the written directory."""
    return format_named(format_name).export(request)
