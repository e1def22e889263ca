"""Span QA around the ONNX model: question + context -> windows -> model -> answers.

The ONNX span model gives each window's best legal span (`task_graphs`); what the SavedModel's
`answer` signature does around it is here, with the same rules: `span_windows` is its
pre-step (`windows_tf` on the in-graph tokenizer: normalization with character offsets,
SentencePiece, windows every `doc_stride` pieces), `best_answers` its post-step (the best
window per question, the first on ties, v2's null threshold, the answer's characters).

Illustration (not run):
    windows = span_windows(tokenizer_layer, questions, contexts, 384, 128, 64)
    outputs = OnnxModel("/tmp/squad_onnx").run(windows.features)
    best_answers(outputs, windows, contexts)["answer"]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from albert_tf.tokenization.piece_offsets import encode_with_offsets_tf


@dataclasses.dataclass
class SpanWindows:
    """Windows of a batch of questions: id features [W, T], each window's question index and
    every position's character span in its context (-1 outside the context)."""

    features: dict[str, np.ndarray]
    example: np.ndarray
    char_starts: np.ndarray
    char_ends: np.ndarray


def span_windows(
    tokenizer_layer,
    questions: Sequence[str],
    contexts: Sequence[str],
    seq_length: int,
    doc_stride: int,
    max_query_length: int,
) -> SpanWindows:
    """The SavedModel's windows (`span_qa.serving.windows_tf`) of `questions` x `contexts`."""
    import tensorflow as tf  # Only the pre-step: the ONNX post-step runs without it.

    from albert_tf.finetune.span_qa.serving import windows_tf

    question_ids = tokenizer_layer(tf.constant(list(questions)))[:, :max_query_length]
    context_ids, char_starts, char_ends = encode_with_offsets_tf(
        tf.constant(list(contexts)), tokenizer_layer.sentencepiece, tokenizer_layer.do_lower_case
    )
    features, _, starts, ends, example = windows_tf(
        question_ids, context_ids, char_starts, char_ends, seq_length, doc_stride
    )
    return SpanWindows(
        {name: value.numpy() for name, value in features.items()},
        example.numpy(),
        starts.numpy(),
        ends.numpy(),
    )


def best_answers(
    outputs: dict[str, np.ndarray],
    windows: SpanWindows,
    contexts: Sequence[str],
    with_null: bool = False,
    null_score_diff_threshold: float = 0.0,
) -> dict[str, list | np.ndarray]:
    """`answer`, `score`, `start`, `end`, `null_odds` per question, as the SavedModel's."""
    answers: dict[str, list] = {key: [] for key in ("answer", "score", "start", "end")}
    answers["null_odds"] = []
    for question, context in enumerate(contexts):
        rows = np.flatnonzero(windows.example == question)
        scores = outputs["span_score"][rows]
        # Floored at the lowest float32, as the graph's segment max: a question without any
        # legal span gets a finite, huge null_odds there, and so here.
        best = float(np.float32(max(scores.max(), np.finfo(np.float32).min)))
        window = int(rows[int(np.argmax(scores))])  # The first best window, as the graph.
        null = float(outputs["null_score"][rows].min())
        has_span = np.isfinite(best)
        null_odds = float(np.float32(null - best)) if has_span else 1e9
        empty = not has_span or (with_null and null_odds > null_score_diff_threshold)
        start = int(windows.char_starts[window, outputs["span_start"][window]])
        end = int(windows.char_ends[window, outputs["span_end"][window]])
        if empty:
            start = end = 0
        answers["answer"].append(context[start:end])
        answers["score"].append(null if empty else best)
        answers["start"].append(start)
        answers["end"].append(end)
        answers["null_odds"].append(null_odds)
    return {
        key: np.asarray(values, np.float32 if key in ("score", "null_odds") else None)
        if key != "answer"
        else values
        for key, values in answers.items()
    }
