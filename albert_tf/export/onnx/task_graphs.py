"""`onnx_model`: an encoder or a fine-tuned task model as one ONNX graph, ids in.

Inputs: int32 `input_word_ids`, `input_mask`, `input_type_ids`, `[batch, sequence]` (multiple
choice: `[batch, options, sequence]`), any batch and length up to `max_position_embeddings`.
Outputs, as the model's SavedModel `serving_default` gives them:

* encoder (`AlbertEncoder`, `AlbertPretrainer`: its encoder): `sequence_output` [B, T, H],
  `pooled_output` [B, H];
* classifier: `logits` [B, C], `probabilities`, `label_ids` int32 [B], `labels` string [B]
  (regression: `logits` [B, 1], `scores` [B]); the padding no row needs is cut first, as the
  SavedModel does (`cut_to_longest`: same outputs, less work for short texts);
* multiple choice: `logits` [B, N] (an all-padding option gets -1e9), `probabilities`,
  `answer_ids` int32 [B], `answers` (letters) string [B];
* span QA, per window: `logits` [W, T, 2] (start, end) and the window's best legal span under
  the decoding rules of `albert_tf.finetune.span_qa` (`best_spans_tf`: both ends in the
  context, at most `max_answer_length` pieces): `span_score`, `span_start`, `span_end` (piece
  positions) and `null_score` (the [CLS] span). The context is the type-1 pieces before the
  final [SEP], as the windows of `SquadFeaturizer` and the SavedModel's `answer` lay them out;
  choosing the best window per question, v2's null threshold and the mapping to characters
  are the host's (`albert_tf.finetune.span_qa.onnx_answers`);
* tagging: `logits` [B, T, C], `probabilities`, `tag_ids` int32 [B, T], `tags` string [B, T] at
  every piece (the words' first pieces are the host's, as `WordPieceAligner` finds them).

The kind of model is `albert_tf.export.model_kind`'s; a new kind adds its head here.
"""

from __future__ import annotations

from collections.abc import Sequence

import keras
import numpy as np
import onnx

from albert_tf.errors import UserError
from albert_tf.export.model_kind import model_kind
from albert_tf.export.onnx.encoder_graph import encoder_graph
from albert_tf.export.onnx.graph_builder import GraphBuilder
from albert_tf.models.dense_task_model import PADDED_OPTION_LOGIT
from albert_tf.models.encoder import INPUT_NAMES, AlbertEncoder

# The SavedModel's `answer` signature default (`AnswerRules().max_answer_length`).
MAX_ANSWER_LENGTH = 30
_LETTERS = [chr(ord("A") + i) for i in range(26)]


def _head(graph: GraphBuilder, x: str, model: keras.Model) -> str:
    kernel = graph.weight("head.kernel", np.asarray(model.head.kernel.numpy(), np.float32))
    bias = graph.weight("head.bias", np.asarray(model.head.bias.numpy(), np.float32))
    return graph.node("Add", [graph.node("MatMul", [x, kernel]), bias])


def _choice(graph: GraphBuilder, logits: str, names: Sequence[str], kind: str) -> dict[str, str]:
    """`logits`, `probabilities`, `<kind>_ids` and `<kind>s`, as `choice_outputs`."""
    ids = graph.node("Cast", [graph.node("ArgMax", [logits], axis=-1, keepdims=0)], to=6)
    return {
        "logits": logits,
        "probabilities": graph.node("Softmax", [logits], axis=-1),
        f"{kind}_ids": ids,
        f"{kind}s": graph.node("Gather", [graph.constant(f"{kind}_names", list(names)), ids]),
    }


def _cut_to_longest(graph: GraphBuilder, inputs: dict[str, str]) -> dict[str, str]:
    """[B, T] inputs cut to the longest row (at least one position)."""
    lengths = graph.node(
        "ReduceSum", [inputs["input_mask"], graph.constant("axis_1", [-1])], keepdims=0
    )
    longest = graph.node("ReduceMax", [lengths], keepdims=1)
    longest = graph.node("Max", [longest, graph.constant("one_i32", np.array([1], np.int32))])
    end = graph.node("Cast", [longest], to=7)
    start, axis = graph.constant("start0", [0]), graph.constant("axis1_i64", [1])
    return {name: graph.node("Slice", [value, start, end, axis]) for name, value in inputs.items()}


def _span_decoding(graph: GraphBuilder, logits: str, inputs: dict[str, str], max_answer: int):
    """Per window: the best legal span's score, start and end, and the [CLS] null score."""
    constant = graph.constant
    start_logits = graph.node("Gather", [logits, constant("zero64", np.array(0, np.int64))], axis=2)
    end_logits = graph.node("Gather", [logits, constant("one64", np.array(1, np.int64))], axis=2)
    # The context: type-1 pieces before the row's last real piece (its final [SEP]).
    shape = graph.node("Shape", [inputs["input_word_ids"]])
    length = graph.node("Gather", [shape, constant("one64", np.array(1, np.int64))])
    positions = graph.node(
        "Range",
        [
            constant("zero_s", np.array(0, np.int64)),
            length,
            constant("one_s", np.array(1, np.int64)),
        ],
    )
    real = graph.node(
        "ReduceSum",
        [graph.node("Cast", [inputs["input_mask"]], to=7), constant("axis_1", [-1])],
        keepdims=1,
    )
    before_last = graph.node("Less", [positions, graph.node("Sub", [real, constant("one_1", [1])])])
    is_type_1 = graph.node(
        "Equal", [inputs["input_type_ids"], constant("one_i32s", np.array(1, np.int32))]
    )
    in_context = graph.node("And", [is_type_1, before_last])  # [W, T]
    # Ends [T, A]: start + offset, inside the window.
    offsets = constant("answer_offsets", np.arange(max_answer, dtype=np.int64))
    ends = graph.node(
        "Add", [graph.node("Unsqueeze", [positions, constant("axes1", [1])]), offsets]
    )
    inside = graph.node("Less", [ends, length])
    ends = graph.node(
        "Min", [ends, graph.node("Sub", [length, constant("one_s", np.array(1, np.int64))])]
    )
    legal = graph.node(
        "And",
        [
            graph.node(
                "And",
                [
                    graph.node("Unsqueeze", [in_context, constant("axes2", [2])]),
                    graph.node("Gather", [in_context, ends], axis=1),
                ],
            ),
            inside,
        ],
    )
    scores = graph.node(
        "Add",
        [
            graph.node("Unsqueeze", [start_logits, constant("axes2", [2])]),
            graph.node("Gather", [end_logits, ends], axis=1),
        ],
    )
    scores = graph.node(
        "Where", [legal, scores, constant("minus_inf", np.array(-np.inf, np.float32))]
    )
    flat = graph.node("Reshape", [scores, constant("flat", [0, -1])])
    best = graph.node("ArgMax", [flat], axis=1, keepdims=0)  # The first maximum, as decoding.
    # The best score itself (-inf for a window without a legal span: a ReduceMax would give
    # the lowest float instead on some runtimes).
    score = graph.node(
        "GatherElements",
        [flat, graph.node("Unsqueeze", [best, constant("axes1", [1])])],
        axis=1,
    )
    score = graph.node("Squeeze", [score, constant("axes1", [1])])
    answer = constant("max_answer", np.array(max_answer, np.int64))
    first = graph.node("Div", [best, answer])
    last = graph.node("Add", [first, graph.node("Mod", [best, answer])])
    null = graph.node(
        "Add",
        [
            graph.node("Gather", [start_logits, constant("zero64", np.array(0, np.int64))], axis=1),
            graph.node("Gather", [end_logits, constant("zero64", np.array(0, np.int64))], axis=1),
        ],
    )
    return {
        "logits": logits,
        "span_score": score,
        "span_start": graph.node("Cast", [first], to=6),
        "span_end": graph.node("Cast", [last], to=6),
        "null_score": null,
    }


# Output name -> (dtype, shape) per kind; "H", "C" are filled in.
def _output_specs(kind: str, model: keras.Model) -> dict[str, tuple[str, list]]:
    seq = ["batch", "sequence"]
    if kind == "encoder":
        return {
            "sequence_output": ("float32", [*seq, "hidden"]),
            "pooled_output": ("float32", ["batch", "hidden"]),
        }
    if kind == "classifier":
        if model.num_outputs == 1:
            return {"logits": ("float32", ["batch", 1]), "scores": ("float32", ["batch"])}
        return {
            "logits": ("float32", ["batch", "classes"]),
            "probabilities": ("float32", ["batch", "classes"]),
            "label_ids": ("int32", ["batch"]),
            "labels": ("string", ["batch"]),
        }
    if kind == "multiple_choice":
        return {
            "logits": ("float32", ["batch", "options"]),
            "probabilities": ("float32", ["batch", "options"]),
            "answer_ids": ("int32", ["batch"]),
            "answers": ("string", ["batch"]),
        }
    if kind == "span_qa":
        return {
            "logits": ("float32", [*seq, 2]),
            "span_score": ("float32", ["batch"]),
            "span_start": ("int32", ["batch"]),
            "span_end": ("int32", ["batch"]),
            "null_score": ("float32", ["batch"]),
        }
    return {
        "logits": ("float32", [*seq, "tags"]),
        "probabilities": ("float32", [*seq, "tags"]),
        "tag_ids": ("int32", seq),
        "tags": ("string", seq),
    }


def onnx_model(
    model: keras.Model,
    labels: Sequence[str] | None = None,
    max_answer_length: int = MAX_ANSWER_LENGTH,
) -> onnx.ModelProto:
    """The ONNX graph of `model` (see the module docstring); `labels`: class names in id order
    (classifier: default `LABEL_i`; tagging: default the model's own)."""
    kind = model_kind(model)
    graph = GraphBuilder()
    options = kind == "multiple_choice"
    dims = ["batch", "options", "sequence"] if options else ["batch", "sequence"]
    inputs = {name: graph.input(name, "int32", dims) for name in INPUT_NAMES}
    encoder = model.encoder if not isinstance(model, AlbertEncoder) else model
    features = inputs
    if options:  # [B, N, T] -> [B * N, T]: every option is its own sequence.
        features = {name: graph.node("Flatten", [value], axis=2) for name, value in inputs.items()}
    if kind in ("classifier", "multiple_choice"):
        features = _cut_to_longest(graph, features)
    pooled_only = kind in ("classifier", "multiple_choice")
    encoded = encoder_graph(
        graph, encoder, *(features[name] for name in INPUT_NAMES), pooled_only=pooled_only
    )
    if kind == "encoder":
        outputs = encoded
    elif kind == "classifier":
        logits = _head(graph, encoded["pooled_output"], model)
        if model.num_outputs == 1:
            scores = graph.node("Squeeze", [logits, graph.constant("axes_last", [1])])
            outputs = {"logits": logits, "scores": scores}
        else:
            names = list(labels) if labels else [f"LABEL_{i}" for i in range(model.num_outputs)]
            _check_labels(names, model.num_outputs)
            outputs = _choice(graph, logits, names, "label")
    elif kind == "multiple_choice":
        scores = _head(graph, encoded["pooled_output"], model)  # [B * N, 1]
        mask_shape = graph.node("Shape", [inputs["input_mask"]], end=2)
        logits = graph.node("Reshape", [scores, mask_shape])
        is_real = graph.node(
            "Greater",
            [
                graph.node("ReduceMax", [inputs["input_mask"]], axes=[-1], keepdims=0),
                graph.constant("zero_i32", np.array(0, np.int32)),
            ],
        )
        padded = graph.constant("padded_logit", np.array(PADDED_OPTION_LOGIT, np.float32))
        logits = graph.node("Where", [is_real, logits, padded])
        outputs = _choice(graph, logits, _LETTERS, "answer")
    elif kind == "span_qa":
        logits = _head(graph, encoded["sequence_output"], model)
        outputs = _span_decoding(graph, logits, features, max_answer_length)
    else:
        logits = _head(graph, encoded["sequence_output"], model)
        names = list(labels or model.labels or [f"LABEL_{i}" for i in range(model.num_labels)])
        _check_labels(names, model.num_labels)
        outputs = _choice(graph, logits, names, "tag")
    hidden = encoder.config.hidden_size
    for name, (dtype, shape) in _output_specs(kind, model).items():
        shape = [hidden if dim == "hidden" else dim for dim in shape]
        graph.output(outputs[name], name, dtype, shape)
    return graph.model(doc_string=f"albert_tf {kind}")


def _check_labels(names: Sequence[str], count: int) -> None:
    if len(names) != count:
        raise UserError(
            f"{len(names)} label names for a model with {count} outputs",
            where="task.json labels",
            fix="pass the labels the model was trained with",
        )
