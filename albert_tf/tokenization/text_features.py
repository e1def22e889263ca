"""`AlbertTextFeatures`: raw text (one or two columns) -> the encoder's input dict, in graph.

`AlbertTextTokenizer` (normalization + SentencePiece) then `AlbertInputPacker` ([CLS] A [SEP]
B [SEP], longest-first truncation, padding). Use it in `tf.data.Dataset.map`, or as the first
layer of a serving model so that a SavedModel takes strings.
"""

from __future__ import annotations

import os
from typing import Any

import keras
import tensorflow as tf

from albert_tf.layer_config import ArgumentsConfig
from albert_tf.tokenization.input_packer import AlbertInputPacker
from albert_tf.tokenization.text_tokenizer_layer import (
    AlbertTextTokenizer,
    as_string_tensor,
    as_text_tokenizer,
)


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertTextFeatures(ArgumentsConfig, keras.layers.Layer):
    """`tf.string` [N] (or a pair of them) -> int32 `[N, seq_length]` feature dict.

    Args:
        tokenizer: an `AlbertTextTokenizer`, the path of a SentencePiece `.model` file, or a
            serialized tokenizer (from `get_config`).
        seq_length: `max_seq_length` of the model.
        do_lower_case: used only when `tokenizer` is a path.
        **kwargs: `keras.layers.Layer` arguments.

    In a `.keras` archive the SentencePiece model travels as the tokenizer's asset.

    Illustration (not run):
        features = AlbertTextFeatures("spm.model", seq_length=16)
        batch = features([tf.constant(["A man."]), tf.constant(["A person."])])
        sorted(batch)
        ['input_mask', 'input_type_ids', 'input_word_ids']
    """

    def __init__(
        self,
        tokenizer: AlbertTextTokenizer | str | os.PathLike | dict[str, Any],
        seq_length: int,
        do_lower_case: bool = True,
        **kwargs,
    ):
        kwargs.setdefault("dtype", "int32")
        kwargs["trainable"] = False
        super().__init__(**kwargs)
        self.tokenizer = as_text_tokenizer(tokenizer, do_lower_case)
        self.seq_length = seq_length
        self.do_lower_case = self.tokenizer.do_lower_case
        self.packer = AlbertInputPacker(seq_length, name="packer")

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.vocab_size

    def __call__(self, texts, *args, **kwargs):
        if isinstance(texts, (list, tuple)):  # One or two columns.
            texts = [as_string_tensor(column) for column in texts]
        else:
            texts = as_string_tensor(texts)
        return super().__call__(texts, *args, **kwargs)

    def call(self, texts):
        columns = list(texts) if isinstance(texts, (list, tuple)) else [texts]
        segments = [self.tokenizer(tf.reshape(column, [-1])) for column in columns]
        return self.packer(segments)

    def compute_output_spec(self, texts):
        first = texts[0] if isinstance(texts, (list, tuple)) else texts
        spec = keras.KerasTensor((first.shape[0], self.seq_length), dtype="int32")
        return {"input_word_ids": spec, "input_mask": spec, "input_type_ids": spec}
