"""`ChoiceFeatures`: raw (context, question, options) -> `[B, N, L]` encoder inputs, in graph.

The original RACE encoding with TensorFlow ops only, so the same layer featurizes the training
data (`tf.data`) and serves in the SavedModel (`choose`):

    [CLS] context [SEP] question+option [SEP]     per option; the article truncated first

The original `race_utils` builds, for every option:

1. the QA text: when the question holds a "_" blank, the option fills it, else
   `question + " " + option`;
2. its pieces, of which it keeps the LAST `max_qa_length`;
3. the article's pieces, cut at the end to fit `[CLS] article [SEP] qa [SEP]` into
   `max_seq_length` (the article is truncated first, the QA only by step 2);
4. segment 0 for `[CLS]`, the article and the first `[SEP]`, 1 for the QA and the last `[SEP]`.

One difference, on purpose: the original fills the blank with `str.replace("_", option)`, so
RACE's usual blank "______" repeats the option once per underscore (six times). Here a run of
underscores is one blank and gets the option once; `blank_per_underscore=True` restores the
original behaviour exactly. The tests compare the layer with a plain-Python reference of these
steps (`tests/finetune/multiple_choice/choice_reference.py`).

Options are a `[B, N]` string tensor; an empty option is padding and packs to all zeros (the
model gives it no probability), so questions with fewer options share a batch with others.
"""

from __future__ import annotations

import os
from typing import Any

import keras
import tensorflow as tf

from albert_tf.layer_config import ArgumentsConfig
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID
from albert_tf.tokenization.string_parts import split_parts
from albert_tf.tokenization.text_packing import pack_kept
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer, as_text_tokenizer

BLANK = "_"


def fill_blanks(question: tf.Tensor, options: tf.Tensor, blank_per_underscore: bool) -> tf.Tensor:
    """Step 1 (the QA text) for strings `question` [B] and `options` [B, N] -> [B, N]."""
    if not blank_per_underscore:
        question = tf.strings.regex_replace(question, "_+", BLANK)
    num_options = tf.shape(options)[1]
    num_rows = tf.size(options)
    flat_options = tf.reshape(options, [-1])
    row_question = tf.gather(question, tf.range(num_rows) // num_options)
    parts, part_rows, is_last = split_parts(row_question, BLANK)
    # Each part but the last is followed by the option: "a _ b _" -> "a " opt " b " opt "".
    fill = tf.where(is_last, "", tf.gather(flat_options, part_rows))
    filled = tf.strings.unsorted_segment_join(tf.strings.join([parts, fill]), part_rows, num_rows)
    appended = tf.strings.join([row_question, flat_options], separator=" ")
    num_parts = tf.math.unsorted_segment_sum(tf.ones_like(part_rows), part_rows, num_rows)
    qa = tf.where(num_parts > 1, filled, appended)
    return tf.reshape(qa, tf.shape(options))


@keras.saving.register_keras_serializable(package="albert_tf")
class ChoiceFeatures(ArgumentsConfig, keras.layers.Layer):
    """`(context [B], question [B], options [B, N])` strings -> int32 `[B, N, L]` features.

    Args:
        tokenizer: an `AlbertTextTokenizer`, a SentencePiece `.model` path, or its config.
        seq_length: `max_seq_length` (L).
        max_qa_length: pieces of question+option kept (the last ones), at most L - 3.
        do_lower_case: used only when `tokenizer` is a path.
        blank_per_underscore: fill the blank as the original does (once per "_").
        **kwargs: `keras.layers.Layer` arguments.

    Illustration (not run):
        features = ChoiceFeatures("spm.model", seq_length=32, max_qa_length=8)
        batch = features([tf.constant(["Tom has a cat."]), tf.constant(["Tom has a _."]),
                          tf.constant([["cat", "dog", ""]])])
        batch["input_word_ids"].shape  # TensorShape([1, 3, 32])
    """

    def __init__(
        self,
        tokenizer: AlbertTextTokenizer | str | os.PathLike | dict[str, Any],
        seq_length: int,
        max_qa_length: int = 128,
        do_lower_case: bool = True,
        blank_per_underscore: bool = False,
        **kwargs,
    ):
        kwargs.setdefault("dtype", "int32")
        kwargs["trainable"] = False
        super().__init__(**kwargs)
        if not 1 <= max_qa_length <= seq_length - 3:
            raise ValueError(
                f"max_qa_length must be in [1, seq_length - 3 = {seq_length - 3}], "
                f"got {max_qa_length}."
            )
        self.tokenizer = as_text_tokenizer(tokenizer, do_lower_case)
        self.seq_length = seq_length
        self.max_qa_length = max_qa_length
        self.do_lower_case = self.tokenizer.do_lower_case
        self.blank_per_underscore = blank_per_underscore

    def call(self, inputs):
        context, question, options = inputs
        context = tf.reshape(context, [-1])
        question = tf.reshape(question, [-1])
        shape = tf.shape(options)
        num_options = shape[1]
        qa = self.tokenizer(
            tf.reshape(fill_blanks(question, options, self.blank_per_underscore), [-1])
        )
        article = self.tokenizer(context)  # Once per question, read by each of its options.
        question_of_row = tf.range(shape[0] * num_options) // num_options
        article_splits = tf.cast(article.row_splits, tf.int32)
        article_starts = tf.gather(article_splits[:-1], question_of_row)
        article_lengths = tf.gather(article_splits[1:], question_of_row) - article_starts
        qa_lengths = tf.cast(qa.row_lengths(), tf.int32)
        # The last max_qa_length pieces of question+option, then as much article as fits.
        kept_qa = tf.minimum(qa_lengths, self.max_qa_length)
        kept_article = tf.minimum(article_lengths, self.seq_length - 3 - kept_qa)
        qa_starts = tf.cast(qa.row_splits[:-1], tf.int32) + qa_lengths - kept_qa
        features = pack_kept(
            (tf.cast(article.values, tf.int32), article_starts),
            (tf.cast(qa.values, tf.int32), qa_starts),
            kept_article,
            kept_qa,
            tf.ones_like(kept_qa, tf.bool),  # Both [SEP]s, even for an empty question+option.
            self.seq_length,
            CLS_ID,
            SEP_ID,
        )
        is_real = tf.reshape(tf.strings.length(options) > 0, [-1, 1])
        out_shape = tf.stack([shape[0], num_options, self.seq_length])
        return {
            name: tf.ensure_shape(
                tf.reshape(tensor * tf.cast(is_real, tf.int32), out_shape),
                [None, None, self.seq_length],
            )
            for name, tensor in features.items()
        }

    def compute_output_spec(self, inputs):
        options = inputs[2]
        spec = keras.KerasTensor((options.shape[0], options.shape[1], self.seq_length), "int32")
        return {"input_word_ids": spec, "input_mask": spec, "input_type_ids": spec}
