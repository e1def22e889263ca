"""TF Serving warm-up records: `assets.extra/tf_serving_warmup_requests` in every SavedModel.

TF Serving replays these `PredictionLog` records when it loads a model version, before the
version serves: the first real request then does not pay for TensorFlow's lazy work (graph
optimization, oneDNN's weight reorders, the SentencePiece model's parsing), which takes longer
than many requests. The file is a TFRecord of `PredictionLog`s holding `PredictRequest`s.

`write_warmup_requests` writes one record per signature of a written SavedModel, built from the
signatures as its `saved_model.pb` declares them (what the server reads), so a family needs no
argument for it: each input gets a real example chosen by its name (`EXAMPLE_TEXT`: `text_a`,
`text_b`, `question`, `context`, `options`, `words`...), and id inputs (`input_word_ids`,
`input_mask`, `input_type_ids`) get the ids of real text through the model's own tokenizer,
packed `[CLS] A [SEP] B [SEP]` and cut to the model's positions. An input of another name gets
an empty string or zeros, with a warning. `read_warmup_requests` reads them back.

A batch of one per signature: enough to initialize each signature's graph. The server fails to
load a model whose warm-up fails, so the tests replay every record the way the server does.

Example:
    >>> import tempfile
    >>> export_dir = tempfile.mkdtemp()
    >>> module = tf.Module()
    >>> module.f = tf.function(lambda text_a: {"n": tf.strings.length(text_a)},
    ...                        input_signature=[tf.TensorSpec([None], tf.string)])
    >>> tf.saved_model.save(module, export_dir, signatures={"count": module.f})
    >>> _ = write_warmup_requests(export_dir)
    >>> [(r.model_spec.signature_name, list(r.inputs)) for r in read_warmup_requests(export_dir)]
    [('count', ['text_a'])]
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import meta_graph_pb2, saved_model_pb2
from tensorflow_serving.apis import predict_pb2, prediction_log_pb2

from albert_tf.models.encoder import AlbertEncoder
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID
from albert_tf.tokenization.text_packing import pack_segments_reference
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer

WARMUP_FILE = os.path.join("assets.extra", "tf_serving_warmup_requests")
# Real text per input name; a signature whose name mentions "mask" gets `MASKED` as `text`.
EXAMPLE_TEXT = {
    "text_a": "Ann Smith flew from Paris to Tokyo on Monday.",
    "text_b": "She landed in Japan the next morning.",
    "text": "Ann Smith flew from Paris to Tokyo on Monday.",
    "sentences": "Ann Smith flew from Paris to Tokyo on Monday.",
    "context": "Ann Smith flew from Paris to Tokyo on Monday.",
    "question": "Where did Ann Smith fly to?",
}
MASKED = "Ann Smith flew from Paris to [MASK] on Monday."
OPTIONS = ("Tokyo", "Berlin")
_ID_INPUTS = ("input_word_ids", "input_mask", "input_type_ids")


def write_warmup_requests(saved_model_dir: str, layers: Sequence[Any] = ()) -> str:
    """Writes the warm-up records of every signature of the SavedModel in `saved_model_dir`.

    Args:
        saved_model_dir: a written SavedModel (e.g. the temporary directory of an export).
        layers: the Keras layers and models the signatures use: the first `AlbertTextTokenizer`
            in them (or in their sub-layers) tokenizes the id inputs' text (without one they
            get `[CLS] [SEP]`), the first `AlbertEncoder` bounds their length.

    Returns:
        The path of the written file.
    """
    text_tokenizer = _first(layers, AlbertTextTokenizer)
    encoder = _first(layers, AlbertEncoder)
    max_seq_length = encoder.config.max_position_embeddings if encoder is not None else None
    requests = [
        _request(name, signature, text_tokenizer, max_seq_length)
        for name, signature in sorted(_signature_defs(saved_model_dir).items())
    ]
    path = os.path.join(saved_model_dir, WARMUP_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tf.io.TFRecordWriter(path) as writer:
        for request in requests:
            log = prediction_log_pb2.PredictionLog(
                predict_log=prediction_log_pb2.PredictLog(request=request)
            )
            writer.write(log.SerializeToString())
    return path


def read_warmup_requests(saved_model_dir: str) -> list[predict_pb2.PredictRequest]:
    """The `PredictRequest`s of a SavedModel's warm-up file, in file order."""
    path = os.path.join(saved_model_dir, WARMUP_FILE)
    return [
        prediction_log_pb2.PredictionLog.FromString(record.numpy()).predict_log.request
        for record in tf.data.TFRecordDataset(path)
    ]


def _first(layers: Sequence[Any], cls: type):
    """The first instance of `cls` among `layers` and their tracked descendants, or None."""
    for layer in layers:
        for candidate in [layer, *tf.train.TrackableView(layer).descendants()]:
            if isinstance(candidate, cls):
                return candidate
    return None


def _signature_defs(saved_model_dir: str) -> dict[str, meta_graph_pb2.SignatureDef]:
    """The serving signatures of the SavedModel's `serve` graph (not the init op's)."""
    saved_model = saved_model_pb2.SavedModel()
    with open(os.path.join(saved_model_dir, "saved_model.pb"), "rb") as handle:
        saved_model.ParseFromString(handle.read())
    (graph,) = [g for g in saved_model.meta_graphs if "serve" in g.meta_info_def.tags]
    return {name: s for name, s in graph.signature_def.items() if not name.startswith("__")}


def _request(
    signature_name: str, signature, text_tokenizer, max_seq_length: int | None
) -> predict_pb2.PredictRequest:
    request = predict_pb2.PredictRequest()
    request.model_spec.signature_name = signature_name
    inputs = signature.inputs
    ids = None
    if any(name in inputs for name in _ID_INPUTS):
        ids = _packed_ids(text_tokenizer, _width(inputs, max_seq_length))
    for name, info in inputs.items():
        dtype = tf.dtypes.as_dtype(info.dtype)
        shape = [dim.size for dim in info.tensor_shape.dim]
        value = _example(signature_name, name, dtype, shape, ids)
        request.inputs[name].CopyFrom(tf.make_tensor_proto(value, dtype=dtype))
    return request


def _width(inputs, max_seq_length: int | None) -> int | None:
    """The fixed sequence length of the id inputs, else `max_seq_length`."""
    for name in _ID_INPUTS:
        if name in inputs and inputs[name].tensor_shape.dim:
            size = inputs[name].tensor_shape.dim[-1].size
            if size > 0:
                return size
    return max_seq_length


def _packed_ids(text_tokenizer, width: int | None) -> dict[str, list[int]]:
    """`[CLS] text_a [SEP] text_b [SEP]` of `EXAMPLE_TEXT` as encoder inputs, one row."""
    ids_a, ids_b = [], []
    if text_tokenizer is not None:
        texts = tf.constant([EXAMPLE_TEXT["text_a"], EXAMPLE_TEXT["text_b"]])
        ids_a, ids_b = text_tokenizer(texts).to_list()
    length = len(ids_a) + len(ids_b) + 3
    length = max(3, min(length, width)) if width else length
    return pack_segments_reference(ids_a, ids_b, length, CLS_ID, SEP_ID)


def _example(signature_name: str, name: str, dtype: tf.DType, shape: list[int], ids):
    """A batch of one for input `name` (rank and fixed sizes from `shape`)."""
    rank = len(shape)
    if ids is not None and name in ids:
        row = ids[name]
        return [row] if rank == 2 else [[row, row]]  # rank 3: [batch, choices, seq]
    if name == "masked_lm_positions":
        return [[1, 2]]
    if dtype == tf.string:
        text = EXAMPLE_TEXT.get(name)
        if name == "text" and "mask" in signature_name:
            text = MASKED
        if name == "options":
            return [list(OPTIONS)]
        if name == "words":
            return [EXAMPLE_TEXT["text"].split()]
        if text is not None and rank == 1:
            return [text]
    if name == "num_words":
        return [len(EXAMPLE_TEXT["text"].split())]
    logging.warning(
        "Warm-up request of signature %s: no example for input %r; using %s.",
        signature_name,
        name,
        "empty strings" if dtype == tf.string else "zeros",
    )
    sizes = [size if size > 0 else 1 for size in shape]
    if dtype == tf.string:
        return np.full(sizes, b"", dtype=object)
    return np.zeros(sizes, dtype.as_numpy_dtype)
