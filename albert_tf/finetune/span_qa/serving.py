"""`span_qa_endpoints`: a fine-tuned span QA model's SavedModel signature, answering from raw text.

Signature `answer(question, context)`: `tf.string` [B] each ->
    `answer` string [B]   the exact substring of the original context ("" = no answer, v2)
    `score` float32 [B]   start + end logit of the answer (the null score when "")
    `start`, `end` int32 [B]  its character offsets in the original context (0, 0 when "")
    `null_odds` float32 [B]   null score - best span score (v2's no-answer test)

Everything the Python pipeline does happens in the graph, with the same rules, so the answers
are the same: ALBERT normalization with per-character offsets and SentencePiece
(`encode_with_offsets_tf`), the question cut to `max_query_length`, the context cut into windows
of `max_seq_length` every `doc_stride` pieces (any number of windows per question), the model,
the best legal span per window (decoding.py), the best window, and v2's null threshold.

Loading needs `tensorflow` and `tensorflow_text` only:

    import tensorflow as tf, tensorflow_text  # noqa: F401
    qa = tf.saved_model.load(export_dir)
    qa.signatures["answer"](question=tf.constant(["Who?"]), context=tf.constant(["Ann ran."]))

The driver exports it (`export_task_model` with the family's `serving_signatures`).

Illustration (not run):
    layer = serving_tokenizer(featurizer)
    export_task_model("/tmp/squad_export", model,
                      lambda predict: span_qa_endpoints(predict, layer, featurizer, AnswerRules()),
                      [layer], runtime=Runtime.plain())
"""

from __future__ import annotations

import tensorflow as tf

from albert_tf.export.endpoints import Endpoints
from albert_tf.export.task_export import Predict
from albert_tf.finetune.span_qa.decoding import AnswerRules
from albert_tf.finetune.span_qa.features import SquadFeaturizer
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID
from albert_tf.tokenization.piece_offsets import encode_with_offsets_tf
from albert_tf.tokenization.ragged_rows import value_row_ids
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer

_TEXT_SPEC = tf.TensorSpec([None], tf.string)


def _dense(ragged: tf.RaggedTensor) -> tf.Tensor:
    """Padded [B, max(1, width)] (a zero column keeps gathers valid on empty rows)."""
    dense = ragged.to_tensor(default_value=0)
    return tf.concat([dense, tf.zeros_like(dense[:, :1])], axis=1)


def windows_tf(question_ids, context_ids, char_starts, char_ends, seq_length, stride):
    """In-graph windows of `SquadFeaturizer`: features, context mask, char spans, example ids."""
    query_length = tf.cast(question_ids.row_lengths(), tf.int32)
    num_pieces = tf.cast(context_ids.row_lengths(), tf.int32)
    window_length = seq_length - query_length - 3
    step = tf.minimum(window_length, stride)
    extra = tf.maximum(num_pieces - window_length, 0)
    num_windows = 1 + (extra + step - 1) // step
    window_splits = tf.concat([[0], tf.cumsum(num_windows)], axis=0)
    example = value_row_ids(window_splits)  # The question of each window.
    within = tf.range(window_splits[-1]) - tf.gather(window_splits, example)
    start = within * tf.gather(step, example)
    q_len = tf.gather(query_length, example)[:, None]
    count = tf.minimum(tf.gather(num_pieces, example) - start, tf.gather(window_length, example))
    count = count[:, None]
    position = tf.range(seq_length)[None, :]
    in_question = (position >= 1) & (position <= q_len)
    in_context = (position >= q_len + 2) & (position < q_len + 2 + count)
    context_index = tf.maximum(start[:, None] + position - q_len - 2, 0)

    def take(ragged, index):
        rows = tf.gather(_dense(ragged), example)
        index = tf.minimum(index, tf.shape(rows)[1] - 1)
        return tf.gather(rows, index, batch_dims=1)

    question_part = take(question_ids, tf.maximum(position - 1, 0) + 0 * q_len)
    context_part = take(context_ids, context_index)
    ids = tf.zeros_like(context_part)
    ids = tf.where(in_context, context_part, ids)
    ids = tf.where((position == q_len + 1) | (position == q_len + 2 + count), SEP_ID, ids)
    ids = tf.where(in_question, question_part, ids)
    ids = tf.where(position == 0, CLS_ID, ids)
    type_ids = tf.cast((position >= q_len + 2) & (position <= q_len + 2 + count), tf.int32)
    features = {
        "input_word_ids": ids,
        "input_mask": tf.cast(ids != 0, tf.int32),
        "input_type_ids": type_ids,
    }
    starts = tf.where(in_context, take(char_starts, context_index), -1)
    ends = tf.where(in_context, take(char_ends, context_index), -1)
    return features, in_context, starts, ends, example


def best_spans_tf(logits, in_context, max_answer_length: int):
    """Per window: best legal span (score, start, end) and the null score; rules of decoding.py."""
    start_logits, end_logits = logits[:, :, 0], logits[:, :, 1]
    seq_length = tf.shape(start_logits)[1]
    ends = tf.range(seq_length)[:, None] + tf.range(max_answer_length)[None, :]
    inside = ends < seq_length
    ends = tf.minimum(ends, seq_length - 1)
    legal = in_context[:, :, None] & tf.gather(in_context, ends, axis=1) & inside[None]
    scores = start_logits[:, :, None] + tf.gather(end_logits, ends, axis=1)
    scores = tf.where(legal, scores, -float("inf"))
    flat = tf.reshape(scores, [tf.shape(scores)[0], -1])
    best = tf.argmax(flat, axis=1, output_type=tf.int32)  # First maximum, as np.lexsort.
    best_score = tf.reduce_max(flat, axis=1)
    first = best // max_answer_length
    last = first + best % max_answer_length
    return best_score, first, last, start_logits[:, 0] + end_logits[:, 0]


def span_qa_endpoints(
    predict: Predict,
    tokenizer_layer: AlbertTextTokenizer,
    featurizer: SquadFeaturizer,
    rules: AnswerRules = AnswerRules(),
) -> Endpoints:
    """Signature name -> (function, input signature) of the module docstring; the windows are
    `featurizer`'s (`max_seq_length`, `doc_stride`, `max_query_length`)."""
    seq_length, max_query_length = featurizer.max_seq_length, featurizer.max_query_length

    def answer(question, context):
        question_ids = tokenizer_layer(question)[:, :max_query_length]
        context_ids, char_starts, char_ends = encode_with_offsets_tf(
            context, tokenizer_layer.sentencepiece, tokenizer_layer.do_lower_case
        )
        features, in_context, starts, ends, example = windows_tf(
            question_ids, context_ids, char_starts, char_ends, seq_length, featurizer.doc_stride
        )
        logits = tf.cast(predict(features), tf.float32)
        score, first, last, null = best_spans_tf(logits, in_context, rules.max_answer_length)
        batch = tf.shape(question)[0]
        best = tf.math.unsorted_segment_max(score, example, batch)
        window = tf.range(tf.size(example))
        is_best = score == tf.gather(best, example)
        chosen = tf.math.unsorted_segment_min(
            tf.where(is_best, window, tf.size(example)), example, batch
        )
        chosen = tf.minimum(chosen, tf.size(example) - 1)
        null_score = tf.math.unsorted_segment_min(null, example, batch)
        span_start = tf.gather_nd(starts, tf.stack([chosen, tf.gather(first, chosen)], 1))
        span_end = tf.gather_nd(ends, tf.stack([chosen, tf.gather(last, chosen)], 1))
        has_span = tf.math.is_finite(best)
        null_odds = tf.where(has_span, null_score - best, 1e9)
        empty = tf.logical_not(has_span)
        if rules.with_null:
            empty |= null_odds > rules.null_score_diff_threshold
        span_start = tf.where(empty, 0, span_start)
        span_end = tf.where(empty, 0, span_end)
        text = tf.strings.substr(context, span_start, span_end - span_start, unit="UTF8_CHAR")
        return {
            "answer": text,
            "score": tf.where(empty, null_score, best),
            "start": span_start,
            "end": span_end,
            "null_odds": null_odds,
        }

    return {"answer": (answer, [_TEXT_SPEC, _TEXT_SPEC])}


def serving_tokenizer(featurizer: SquadFeaturizer) -> AlbertTextTokenizer:
    """The in-graph tokenizer of `featurizer`'s SentencePiece model and casing, built."""
    tokenizer = featurizer.tokenizer
    layer = AlbertTextTokenizer(
        proto=tokenizer.serialized_model_proto(), do_lower_case=tokenizer.do_lower_case
    )
    layer(tf.constant([""]))  # Export needs built layers.
    return layer
