"""The file names albert_tf writes and looks for, in one place.

A pretraining workdir, an encoder bundle, a converted checkpoint, a fine-tuning output
directory and the file-format exports all use these names, so that each stage (and each
runner of an export) finds what the previous one wrote.

Example:
    >>> litert_model_file("classifier", "text", "int8", 1), onnx_model_file("encoder", "int8")
    ('classifier_text_int8_b1.tflite', 'encoder_int8.onnx')
"""

# An `AlbertEncoder` as a Keras 3 archive (pretraining output, bundles, conversions).
ENCODER_FILE = "encoder.keras"
# An `AlbertPretrainer` (encoder + MLM/SOP heads) as a Keras 3 archive (conversions).
PRETRAINER_FILE = "pretrainer.keras"
# The `AlbertConfig`, in the original release's `albert_config.json` format.
ALBERT_CONFIG_FILE = "albert_config.json"
# The SentencePiece model, copied next to what was trained with it.
SPM_FILE = "spm.model"
# `{"do_lower_case": ..., "seq_length": ...}` of an encoder bundle.
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
# A fine-tuned task model as a Keras 3 archive, and what the task was (labels, lengths).
FINETUNED_MODEL_FILE = "model.keras"
TASK_FILE = "task.json"
# Every setting of a fine-tuning run.
FINETUNE_CONFIG_FILE = "finetune_config.json"
# The data builder's manifest: `manifest.json` beside `part-*` shards, or `<first
# shard>.manifest.json` beside an `--output_file`. Record readers skip both names.
MANIFEST_FILE = "manifest.json"
MANIFEST_SUFFIX = ".manifest.json"
# What a LiteRT export directory holds (variants, casing, labels, ops).
LITERT_MANIFEST_FILE = "litert.json"
# What an ONNX export directory holds (kind, labels, casing, the pre-step, files).
ONNX_MANIFEST_FILE = "onnx.json"


def litert_model_file(kind: str, input_kind: str, quantization: str, batch_size: int) -> str:
    """A LiteRT export's model file: `<kind>_<ids|text>_<quantization>_b<batch>.tflite`."""
    return f"{kind}_{input_kind}_{quantization}_b{batch_size}.tflite"


def onnx_model_file(kind: str, quantization: str) -> str:
    """An ONNX export's model file: `<kind>_<float32|int8>.onnx`."""
    return f"{kind}_{quantization}.onnx"
