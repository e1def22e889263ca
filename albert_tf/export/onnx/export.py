"""`export_onnx`: an encoder or a fine-tuned task model as ONNX files for ONNX Runtime on CPUs.

The output directory:

    <kind>_float32.onnx   the graph of `task_graphs.onnx_model` (ONNX Runtime's fused
                          operators, each shared weight stored once)
    <kind>_int8.onnx      the same, dynamically quantized (`onnxruntime.quantization`): int8
                          weights, activations quantized per call; `Attention` becomes
                          `QAttention`, each weight `MatMul` `DynamicQuantizeMatMul`
    onnx.json             kind, labels, casing, seq_length, the pre-step and, per file, its
                          inputs, outputs, bytes and operator counts
    spm.model             the SentencePiece model of the pre-step (when the source has one)

Both load in ONNX Runtime (checked after writing) and the float32 file in OpenVINO
(`openvino.Core().read_model`). Inputs are ids (`task_graphs`): the text pre-step is albert_tf's
tokenizer and packing (`onnx.json` says which; `albert_tf.export.onnx.runner` does it).

Illustration (not run):
    export_onnx("/tmp/sst2_onnx", load_export_source("/tmp/sst2_run"))  # '/tmp/sst2_onnx'
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence

import onnx

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.errors import UserError
from albert_tf.export.export_source import ExportSource
from albert_tf.export.onnx.task_graphs import MAX_ANSWER_LENGTH, onnx_model
from albert_tf.file_names import ONNX_MANIFEST_FILE, SPM_FILE, onnx_model_file
from albert_tf.output_lock import output_lock

QUANTIZATIONS = ("float32", "int8")
# What turns text into the ids each kind takes (the SavedModel does it inside its graph).
PRE_STEPS = {
    "encoder": "albert_tf.tokenization.text_features.AlbertTextFeatures(spm, seq_length, "
    "do_lower_case): [CLS] A [SEP] (B [SEP]), padded to seq_length",
    "classifier": "albert_tf.tokenization.text_features.AlbertTextFeatures(spm, seq_length, "
    "do_lower_case) on text_a (and text_b when is_pair)",
    "multiple_choice": "albert_tf.finetune.multiple_choice.choice_features.ChoiceFeatures: "
    "[CLS] context [SEP] question+option [SEP] per option",
    "span_qa": "windows of albert_tf.finetune.span_qa.serving.windows_tf (as the SavedModel's "
    "answer signature and SquadFeaturizer): [CLS] question [SEP] context window [SEP]",
    "tagging": "albert_tf.finetune.tagging.word_pieces.WordPieceAligner: the words' pieces "
    "packed in windows; each word's tag is its first piece's",
}


def _op_counts(model: onnx.ModelProto) -> dict[str, int]:
    return dict(sorted(collections.Counter(node.op_type for node in model.graph.node).items()))


def check_quantizations(quantizations: Sequence[str]) -> None:
    """A `UserError` unless `quantizations` is a non-empty subset of `QUANTIZATIONS`."""
    unknown = [name for name in quantizations if name not in QUANTIZATIONS]
    if unknown or not quantizations:
        raise UserError(
            f"unknown or no quantizations {unknown}",
            where="--quantizations",
            fix=f"use a comma-separated subset of {','.join(QUANTIZATIONS)}",
        )


def quantize_int8(float_path: str, int8_path: str) -> None:
    """Dynamic int8 quantization of the weight matmuls and `Attention` (`QAttention`)."""
    import onnxruntime.quantization  # Optional: the onnx extra.
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _without_info_from(os.path.dirname(onnxruntime.quantization.__file__)):
        quantize_dynamic(
            float_path,
            int8_path,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Attention"],
            # ONNX shape inference does not type the contrib operators' outputs: float32.
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )


@contextlib.contextmanager
def _without_info_from(directory: str) -> Iterator[None]:
    """Drops the INFO (and lower) records logged from files under `directory` while it runs.

    ONNX Runtime's quantizer logs every tensor it quantizes at INFO through the root logger
    (`logging.info`, so no logger of its own to quiet): dozens of lines about its work, not the
    export's. Its warnings still show.
    """
    prefix = os.path.join(directory, "")

    def keep(record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or not record.pathname.startswith(prefix)

    root = logging.getLogger()
    root.addFilter(keep)
    try:
        yield
    finally:
        root.removeFilter(keep)


def _describe(path: str, quantization: str) -> dict:
    import onnxruntime  # Optional: the onnx extra.

    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    model = onnx.load(path, load_external_data=False)

    def spec(value) -> list:
        return [value.type, [dim if isinstance(dim, int) else str(dim) for dim in value.shape]]

    return {
        "file": os.path.basename(path),
        "quantization": quantization,
        "bytes": os.path.getsize(path),
        "inputs": {value.name: spec(value) for value in session.get_inputs()},
        "outputs": {value.name: spec(value) for value in session.get_outputs()},
        "ops": _op_counts(model),
    }


def export_onnx(
    output_dir: str,
    source: ExportSource,
    quantizations: Sequence[str] = QUANTIZATIONS,
    max_answer_length: int = MAX_ANSWER_LENGTH,
    overwrite: bool = False,
) -> str:
    """Writes the ONNX files and `onnx.json` into `output_dir`, atomically; returns its path.

    Args:
        output_dir: directory to create.
        source: the model and what came with it (`albert_tf.export.export_source`).
        quantizations: a non-empty subset of `QUANTIZATIONS`.
        max_answer_length: span QA's longest answer in pieces (the SavedModel's default).
        overwrite: replace an existing `output_dir` once the new one is complete.

    Raises:
        UserError: labels that do not fit, an unknown quantization; nothing is written then.
    """
    output_dir = os.path.abspath(os.fspath(output_dir))
    refuse_existing(output_dir, overwrite)
    check_quantizations(quantizations)
    kind = source.kind
    labels = None if source.is_regression else source.labels
    graph = onnx_model(source.model, labels, max_answer_length)
    onnx.checker.check_model(graph)
    config = source.encoder.config
    manifest = {
        "kind": kind,
        "seq_length": source.seq_length or min(128, config.max_position_embeddings),
        "max_position_embeddings": config.max_position_embeddings,
        "do_lower_case": source.do_lower_case,
        "labels": labels,
        "is_pair": source.is_pair,
        "task": source.task,
        "pre_step": PRE_STEPS[kind],
        "files": [],
    }
    if kind == "span_qa":
        manifest["max_answer_length"] = max_answer_length
    with output_lock(output_dir), atomic_output_directory(output_dir, overwrite) as temp_dir:
        float_path = os.path.join(temp_dir, onnx_model_file(kind, "float32"))
        if "float32" in quantizations:
            onnx.save(graph, float_path)
            manifest["files"].append(_describe(float_path, "float32"))
        if "int8" in quantizations:
            int8_path = os.path.join(temp_dir, onnx_model_file(kind, "int8"))
            with tempfile.TemporaryDirectory() as scratch:
                unquantized = float_path if os.path.isfile(float_path) else None
                if unquantized is None:
                    unquantized = os.path.join(scratch, "float32.onnx")
                    onnx.save(graph, unquantized)
                quantize_int8(unquantized, int8_path)
            manifest["files"].append(_describe(int8_path, "int8"))
        if source.spm_model_file:
            shutil.copyfile(source.spm_model_file, os.path.join(temp_dir, SPM_FILE))
            manifest["spm_model_file"] = SPM_FILE
        with open(os.path.join(temp_dir, ONNX_MANIFEST_FILE), "w", encoding="utf-8") as handle:
            json.dump(manifest, handle, indent=2)
    logging.info("Exported %s (%s).", output_dir, ", ".join(quantizations))
    return output_dir
