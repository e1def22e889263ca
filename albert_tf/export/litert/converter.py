"""Keras model -> LiteRT (TFLite) flatbuffer, ids in or text in, quantized.

Any Keras model that takes the encoder's input dict (`input_word_ids`, `input_mask`,
`input_type_ids`, int32 `[batch, seq]`) converts through `ids_model` or `text_model`; `outputs`
maps the model's output to the named float tensors of the LiteRT signature: the encoder's
(`encoder_outputs`), the classifier's (`classifier_outputs`), or a task model's own
(`default_outputs`: a dict as it is, a tensor as `logits`). `export_litert` (export.py) picks one
per model kind.

* ids in: signature `serving_default(input_word_ids, input_mask, input_type_ids)`, builtin ops
  only (runs on any LiteRT runtime).
* text in: `serving_default(text)` (or `(text, text_b)` for pairs), `tf.string [batch]` already
  normalized by `normalize_text` (the pre-step; see text.py); SentencePiece and packing
  run inside, through builtin ops and tensorflow-text's `TFText>FastSentencepieceTokenize`.
  The packed `input_word_ids`, `input_mask`, `input_type_ids` are outputs too.

Shapes are fixed at export: `[batch_size, seq_length]` (batch 1 for phones; a larger batch for
throughput). Quantization (`QUANTIZATIONS`): `float32`; `float16` weights (dequantized at load);
`int8` dynamic-range (int8 weights, float activations, int8 matmuls with per-batch quantized
inputs). Conversion goes Keras -> SavedModel (`export_endpoints`, temporary) ->
`tf.lite.TFLiteConverter.from_saved_model`, which freezes the weights (converting a concrete
function directly keeps Keras 3 variables as uninitialized resource variables). Every
flatbuffer is checked for Flex / unknown custom ops (`ops.check_ops`).

Illustration (not run):
    write_model("/tmp/encoder.tflite", ids_model(encoder, seq_length=128))
    text_model(classifier, "spm.model", seq_length=128, quantization="int8",
               outputs=classifier_outputs)
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

import keras
import tensorflow as tf
import tensorflow_text as tf_text

from albert_tf.atomic_files import atomic_output_file, refuse_existing
from albert_tf.errors import UserError
from albert_tf.export.endpoints import export_endpoints
from albert_tf.export.litert.ops import TFTEXT_CUSTOM_OPS, check_ops
from albert_tf.export.litert.text import tokenize_dense
from albert_tf.models.encoder import INPUT_NAMES
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID
from albert_tf.tokenization.text_packing import pack_pieces
from albert_tf.tokenization.tokenizer import AlbertTokenizer

QUANTIZATIONS = ("float32", "float16", "int8")
TEXT_INPUTS = ("text", "text_b")
# The model's output -> named output tensors of the LiteRT signature.
Outputs = Callable[[object], dict[str, tf.Tensor]]


def default_outputs(output) -> dict[str, tf.Tensor]:
    """A dict output as it is (e.g. the encoder's, without `encoder_outputs`); else `logits`."""
    if isinstance(output, dict):
        return dict(output)
    return {"logits": output}


def encoder_outputs(output: dict) -> dict[str, tf.Tensor]:
    """`AlbertEncoder` -> `pooled_output` [B, H] and `sequence_output` [B, T, H]."""
    return {"pooled_output": output["pooled_output"], "sequence_output": output["sequence_output"]}


def classifier_outputs(logits) -> dict[str, tf.Tensor]:
    """`AlbertClassifier` -> `logits`, `probabilities` (softmax) and `label_ids` (argmax)."""
    logits = tf.cast(logits, tf.float32)
    return {
        "logits": logits,
        "probabilities": tf.nn.softmax(logits, axis=-1),
        "label_ids": tf.argmax(logits, axis=-1, output_type=tf.int32),
    }


def float32_model(model: keras.Model) -> keras.Model:
    """`model`, or a float32 copy of it when any layer computes in (b)float16.

    Fine-tuning on a CPU with AMX or a GPU picks a mixed policy (`--precision=auto`); bfloat16
    math converts to Flex ops only. The copy is rebuilt from the model's config with every
    dtype policy set to float32, and gets the (float32) weights.
    """
    config = keras.saving.serialize_keras_object(model)
    float32_config = _float32_policies(config)
    if float32_config == config:
        return model
    copy = keras.saving.deserialize_keras_object(float32_config)
    copy.set_weights(model.get_weights())
    return copy


def _float32_policies(value):
    """Serialized Keras config with every mixed / 16-bit float dtype policy set to float32."""
    if isinstance(value, list):
        return [_float32_policies(item) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get("class_name") in ("DTypePolicy", "FloatDTypePolicy"):
        name = value["config"]["name"]
        name = "float32" if name in _LOW_PRECISION else name
        return {**value, "config": {**value["config"], "name": name}}
    return {
        key: "float32" if key == "dtype" and item in _LOW_PRECISION else _float32_policies(item)
        for key, item in value.items()
    }


_LOW_PRECISION = ("mixed_bfloat16", "mixed_float16", "bfloat16", "float16")


def convert(
    function: Callable,
    input_signature: list[tf.TensorSpec],
    tracked: list,
    quantization: str = "float32",
    where: str = "LiteRT export",
    allowed_custom_ops: frozenset[str] = frozenset(),
) -> bytes:
    """Converts `function` (named tensors in -> dict out) to a checked LiteRT flatbuffer.

    Args:
        function: the signature's function; its argument names become the input names.
        input_signature: fully defined `tf.TensorSpec`s.
        tracked: the Keras models/layers whose weights `function` uses.
        quantization: one of `QUANTIZATIONS`.
        where: named in errors.
        allowed_custom_ops: custom ops the runtime will register (none for ids-in models).

    Raises:
        UserError: an unknown quantization, or Flex / unregistered custom ops in the result.
    """
    if quantization not in QUANTIZATIONS:
        raise UserError(
            f"unknown quantization {quantization!r}",
            where=where,
            fix=f"use one of {', '.join(QUANTIZATIONS)}",
        )
    with tempfile.TemporaryDirectory() as temp_dir:
        saved_model = os.path.join(temp_dir, "saved_model")
        export_endpoints(saved_model, {"serving_default": (function, input_signature)}, tracked)
        converter = tf.lite.TFLiteConverter.from_saved_model(saved_model)
        # Let Flex and custom ops through the converter so that `check_ops` names them all.
        converter.target_spec.supported_ops = [
            tf.lite.OpsSet.TFLITE_BUILTINS,
            tf.lite.OpsSet.SELECT_TF_OPS,
        ]
        converter.allow_custom_ops = True
        if quantization != "float32":
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
        if quantization == "float16":
            converter.target_spec.supported_types = [tf.float16]
        flatbuffer = converter.convert()
    check_ops(flatbuffer, where, allowed_custom_ops)
    return flatbuffer


def ids_model(
    model: keras.Model,
    seq_length: int,
    batch_size: int = 1,
    quantization: str = "float32",
    outputs: Outputs = default_outputs,
) -> bytes:
    """A LiteRT model `(input_word_ids, input_mask, input_type_ids)` int32 [B, T] -> outputs."""
    _check_shape(seq_length, batch_size)
    model = float32_model(model)
    spec = tf.TensorSpec([batch_size, seq_length], tf.int32)

    def serve(input_word_ids, input_mask, input_type_ids):
        features = dict(zip(INPUT_NAMES, (input_word_ids, input_mask, input_type_ids), strict=True))
        return outputs(model(features, training=False))

    where = f"{model.name} (ids in, {quantization}, batch {batch_size})"
    return convert(serve, [spec] * 3, [model], quantization, where)


def text_model(
    model: keras.Model,
    spm_model_file: str,
    seq_length: int,
    batch_size: int = 1,
    quantization: str = "float32",
    outputs: Outputs = default_outputs,
    is_pair: bool = False,
) -> bytes:
    """A LiteRT model `text` (and `text_b`) `tf.string [B]`, normalized -> outputs.

    The texts must be `normalize_text(text, do_lower_case)`-ed by the caller (see text.py for
    why); `LiteRtModel.run_texts` does it.
    """
    _check_shape(seq_length, batch_size)
    model = float32_model(model)
    tokenizer = AlbertTokenizer(spm_model_file)
    if model_vocab_size(model) not in (None, tokenizer.vocab_size):
        raise UserError(
            f"the tokenizer has {tokenizer.vocab_size} pieces but the model's vocabulary has "
            f"{model_vocab_size(model)}",
            where=spm_model_file,
            fix="pass the SentencePiece model the encoder was trained with",
        )
    sentencepiece = tf_text.FastSentencepieceTokenizer(tokenizer.serialized_model_proto())
    spec = tf.TensorSpec([batch_size], tf.string)

    def features_and_outputs(*texts):
        segments = [tokenize_dense(sentencepiece, text, tokenizer.space_id) for text in texts]
        features = pack_pieces(segments, seq_length, CLS_ID, SEP_ID)
        # The packed ids come out too: token-level tasks map them back to the text.
        return {**features, **outputs(model(features, training=False))}

    if is_pair:

        def serve(text, text_b):
            return features_and_outputs(text, text_b)

    else:

        def serve(text):
            return features_and_outputs(text)

    where = f"{model.name} (text in, {quantization}, batch {batch_size})"
    signature = [spec] * (2 if is_pair else 1)
    return convert(serve, signature, [model], quantization, where, TFTEXT_CUSTOM_OPS)


def model_vocab_size(model: keras.Model) -> int | None:
    """The vocabulary size of the model's `AlbertEncoder` config, when it has one."""
    encoder = getattr(model, "encoder", model)
    config = getattr(encoder, "config", None)
    return getattr(config, "vocab_size", None)


def write_model(path: str, flatbuffer: bytes, overwrite: bool = False) -> str:
    """Writes a `.tflite` file atomically; returns its path."""
    path = os.path.abspath(os.fspath(path))
    refuse_existing(path, overwrite)
    with atomic_output_file(path) as temp_path, open(temp_path, "wb") as handle:
        handle.write(flatbuffer)
    return path


def _check_shape(seq_length: int, batch_size: int) -> None:
    if seq_length < 3 or batch_size < 1:
        raise UserError(
            f"seq_length {seq_length} / batch_size {batch_size} out of range",
            where="LiteRT export",
            fix="use seq_length >= 3 (room for [CLS] x [SEP]) and batch_size >= 1",
        )
