"""`export_litert`: a directory of LiteRT models (inputs x quantizations x batch sizes) + manifest.

What is exported is an `ExportSource` (`load_export_source` reads it from a fine-tuning output
directory, a converted task model, an encoder bundle or export directory, a `.keras` file or a
pretraining workdir). Its kind (`albert_tf.export.model_kind`) chooses the outputs: an encoder
(or a pretrainer's encoder) gets `pooled_output` and `sequence_output`; a classifier `logits`,
`probabilities`, `label_ids` (a regression: `logits`); any other task model its own outputs (a
dict as it is, a tensor as `logits`).

The output directory:

    <kind>_<ids|text>_<float32|float16|int8>_b<batch>.tflite   one per variant
    litert.json   kind, seq_length, do_lower_case, labels, is_pair, the normalization pre-step
                  and, per file, its inputs, outputs, quantization, batch size, bytes and ops

Illustration (not run):
    export_litert("/tmp/sst2_litert", load_export_source("/tmp/sst2_run"), seq_length=128)
    '/tmp/sst2_litert'
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.errors import UserError
from albert_tf.export.export_source import ExportSource
from albert_tf.export.litert.converter import (
    QUANTIZATIONS,
    Outputs,
    classifier_outputs,
    default_outputs,
    encoder_outputs,
    ids_model,
    text_model,
)
from albert_tf.export.litert.runner import LiteRtModel
from albert_tf.export.model_kind import ENCODER
from albert_tf.file_names import LITERT_MANIFEST_FILE, litert_model_file
from albert_tf.output_lock import output_lock
from albert_tf.tokenization.model_proto import load_albert_model_proto

INPUT_KINDS = ("ids", "text")
NORMALIZATION_PRE_STEP = (
    "text inputs must be normalized before the model: albert_tf.tokenization.normalize."
    "normalize_text(text, do_lower_case), i.e. collapse Unicode whitespace to single spaces "
    "and strip, NFKD and drop combining marks (accents), lowercase when do_lower_case "
    "(keeping [CLS]/[SEP]/[MASK] upper-case); no LiteRT builtin or tensorflow-text op does it"
)


def litert_outputs(source: ExportSource) -> Outputs:
    """The LiteRT outputs of `source`'s kind: the encoder's, a classifier's (not a
    regression's), or the model's own."""
    if source.kind == ENCODER:
        return encoder_outputs
    if source.kind == "classifier" and not source.is_regression:
        return classifier_outputs
    return default_outputs


def export_litert(
    output_dir: str,
    source: ExportSource,
    seq_length: int | None = None,
    batch_sizes: Sequence[int] = (1,),
    quantizations: Sequence[str] = QUANTIZATIONS,
    inputs: Sequence[str] = INPUT_KINDS,
    overwrite: bool = False,
) -> str:
    """Writes every variant and `litert.json` into `output_dir` (atomically); returns its path.

    Args:
        output_dir: directory to create.
        source: the model and what came with it (`albert_tf.export.export_source`).
        seq_length: fixed sequence length (default: the fine-tuning length, else 128).
        batch_sizes: fixed batch sizes to export (1 for phones; more for throughput).
        quantizations: subset of `QUANTIZATIONS`.
        inputs: subset of `INPUT_KINDS` ("text" needs the source's SentencePiece model).
        overwrite: replace an existing `output_dir` once the new one is complete.
    """
    output_dir = os.path.abspath(os.fspath(output_dir))
    refuse_existing(output_dir, overwrite)
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
                    name = litert_model_file(source.kind, input_kind, quantization, batch_size)
                    flatbuffer = _convert(source, input_kind, seq_length, batch_size, quantization)
                    with open(os.path.join(temp_dir, name), "wb") as handle:
                        handle.write(flatbuffer)
                    manifest["models"].append(
                        _describe(name, flatbuffer, input_kind, quantization, batch_size)
                    )
                    logging.info("Wrote %s (%d bytes).", name, len(flatbuffer))
        with open(os.path.join(temp_dir, LITERT_MANIFEST_FILE), "w", encoding="utf-8") as handle:
            json.dump(manifest, handle, indent=2)
    return output_dir


def _convert(
    source: ExportSource, input_kind: str, seq_length: int, batch_size: int, quantization: str
) -> bytes:
    model = source.encoder if source.kind == ENCODER else source.model
    outputs = litert_outputs(source)
    if input_kind == "ids":
        return ids_model(model, seq_length, batch_size, quantization, outputs)
    return text_model(
        model,
        source.spm_model_file,
        seq_length,
        batch_size,
        quantization,
        outputs,
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
