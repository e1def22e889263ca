"""`export_litert`: a directory of LiteRT models (inputs x quantizations x batch sizes) + manifest.

What is exported (a `LiteRtSource`):

* `finetuned_run_source`: the task model of a fine-tuning output directory (`model.keras`,
  `task.json`, `spm.model`, written by `albert-tf classify` and the other task
  families, or by `albert-tf convert --to=albert_tf` from a task model). An
  `AlbertClassifier` gets `logits`, `probabilities`, `label_ids`; any other task model gets
  its own outputs (a dict as it is, a tensor as `logits`), so new families export unchanged
  once their model class is imported (registered with Keras);
* `encoder_source`: an encoder (`albert-tf export-litert` loads anything fine-tuning starts
  from: a bundle, an `encoder.keras`, a pretraining workdir, a converted checkpoint), with
  `pooled_output` and `sequence_output`.

The output directory:

    <kind>_<ids|text>_<float32|float16|int8>_b<batch>.tflite   one per variant
    litert.json   seq_length, do_lower_case, labels, is_pair, the normalization pre-step and,
                  per file, its inputs, outputs, quantization, batch size, bytes and ops

Illustration (not run):
    export_litert("/tmp/sst2_litert", "/tmp/sst2_run", seq_length=128)  # '/tmp/sst2_litert'
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Sequence

import keras

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.errors import UserError
from albert_tf.export.export_source import (
    ExportSource,
    encoder_export_source,
    task_model_source,
)
from albert_tf.export.litert import (
    QUANTIZATIONS,
    Outputs,
    classifier_outputs,
    default_outputs,
    encoder_outputs,
    ids_model,
    text_model,
)
from albert_tf.export.litert_runner import LiteRtModel
from albert_tf.file_names import LITERT_MANIFEST_FILE as MANIFEST_FILE
from albert_tf.output_lock import output_lock
from albert_tf.tokenization.model_proto import load_albert_model_proto

INPUT_KINDS = ("ids", "text")
NORMALIZATION_PRE_STEP = (
    "text inputs must be normalized before the model: albert_tf.tokenization.normalize."
    "normalize_text(text, do_lower_case), i.e. collapse Unicode whitespace to single spaces "
    "and strip, NFKD and drop combining marks (accents), lowercase when do_lower_case "
    "(keeping [CLS]/[SEP]/[MASK] upper-case); no LiteRT builtin or tensorflow-text op does it"
)


@dataclasses.dataclass
class LiteRtSource:
    """A model to export and what its text inputs need."""

    model: keras.Model
    kind: str  # "encoder", "classifier", or the task model's class name.
    spm_model_file: str | None
    do_lower_case: bool
    outputs: Outputs
    seq_length: int | None = None  # The fine-tuning length, when known.
    labels: list[str] | None = None
    is_pair: bool = False


def finetuned_run_source(output_dir: str, spm_model_file: str | None = None) -> LiteRtSource:
    """The task model of a finished fine-tuning run or a converted task model
    (`albert_tf.export.export_source`)."""
    return litert_source(task_model_source(output_dir, spm_model_file))


def litert_source(source: ExportSource) -> LiteRtSource:
    """What LiteRT needs of an `ExportSource`: a classifier's outputs, or the model's own."""
    is_classifier = source.kind == "classifier" and not source.is_regression
    outputs = encoder_outputs if source.kind == "encoder" else default_outputs
    return LiteRtSource(
        model=source.model,
        kind=source.kind,
        spm_model_file=source.spm_model_file,
        do_lower_case=source.do_lower_case,
        outputs=classifier_outputs if is_classifier else outputs,
        seq_length=source.seq_length,
        labels=source.labels,
        is_pair=source.is_pair,
    )


def encoder_source(
    encoder: keras.Model, spm_model_file: str | None, do_lower_case: bool | None
) -> LiteRtSource:
    """An encoder, with `pooled_output` and `sequence_output` (casing default: lowercase)."""
    return litert_source(encoder_export_source(encoder, spm_model_file, do_lower_case))


def export_litert(
    output_dir: str,
    source: LiteRtSource | str,
    seq_length: int | None = None,
    batch_sizes: Sequence[int] = (1,),
    quantizations: Sequence[str] = QUANTIZATIONS,
    inputs: Sequence[str] = INPUT_KINDS,
    overwrite: bool = False,
) -> str:
    """Writes every variant and `litert.json` into `output_dir` (atomically); returns its path.

    Args:
        output_dir: directory to create.
        source: a `LiteRtSource`, or the path of a finished fine-tuning run.
        seq_length: fixed sequence length (default: the fine-tuning length, else 128).
        batch_sizes: fixed batch sizes to export (1 for phones; more for throughput).
        quantizations: subset of `QUANTIZATIONS`.
        inputs: subset of `INPUT_KINDS` ("text" needs the source's SentencePiece model).
        overwrite: replace an existing `output_dir` once the new one is complete.
    """
    output_dir = os.path.abspath(os.fspath(output_dir))
    refuse_existing(output_dir, overwrite)
    if isinstance(source, str):
        source = finetuned_run_source(source)
    seq_length = seq_length or source.seq_length or 128
    _check_choices(inputs, INPUT_KINDS, "--inputs")
    _check_choices(quantizations, QUANTIZATIONS, "--quantizations")
    if "text" in inputs and not source.spm_model_file:
        raise UserError(
            "text-in export needs the SentencePiece model",
            where=source.kind,
            fix="pass --spm_model_file, or export only --inputs=ids",
        )
    if "text" in inputs:
        load_albert_model_proto(source.spm_model_file)  # Fail early on a bad tokenizer.
    manifest = {
        "kind": source.kind,
        "seq_length": seq_length,
        "do_lower_case": source.do_lower_case,
        "labels": source.labels,
        "is_pair": source.is_pair,
        "text_pre_step": NORMALIZATION_PRE_STEP,
        "models": [],
    }
    with output_lock(output_dir), atomic_output_directory(output_dir, overwrite) as temp_dir:
        for input_kind in inputs:
            for quantization in quantizations:
                for batch_size in batch_sizes:
                    name = f"{source.kind}_{input_kind}_{quantization}_b{batch_size}.tflite"
                    flatbuffer = _convert(source, input_kind, seq_length, batch_size, quantization)
                    with open(os.path.join(temp_dir, name), "wb") as handle:
                        handle.write(flatbuffer)
                    manifest["models"].append(
                        _describe(name, flatbuffer, input_kind, quantization, batch_size)
                    )
                    logging.info("Wrote %s (%d bytes).", name, len(flatbuffer))
        with open(os.path.join(temp_dir, MANIFEST_FILE), "w", encoding="utf-8") as handle:
            json.dump(manifest, handle, indent=2)
    return output_dir


def _convert(
    source: LiteRtSource, input_kind: str, seq_length: int, batch_size: int, quantization: str
) -> bytes:
    if input_kind == "ids":
        return ids_model(source.model, seq_length, batch_size, quantization, source.outputs)
    return text_model(
        source.model,
        source.spm_model_file,
        seq_length,
        batch_size,
        quantization,
        source.outputs,
        is_pair=source.is_pair,
    )


def _describe(name: str, flatbuffer: bytes, input_kind: str, quantization: str, batch: int):
    model = LiteRtModel(flatbuffer)  # Also proves that it loads in ai-edge-litert.
    return {
        "file": name,
        "input": input_kind,
        "quantization": quantization,
        "batch_size": batch,
        "bytes": len(flatbuffer),
        "inputs": sorted(model.inputs),
        "outputs": sorted(model.runner.get_output_details()),
        "ops": model.ops,
    }


def _check_choices(values: Sequence, allowed: Sequence, flag: str) -> None:
    unknown = [value for value in values if value not in allowed]
    if unknown or not values:
        raise UserError(
            f"unknown or no values {unknown}",
            where=flag,
            fix=f"use a comma-separated subset of {','.join(allowed)}",
        )
