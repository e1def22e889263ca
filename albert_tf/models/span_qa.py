"""`AlbertSpanQA`: an ALBERT encoder with a start/end span head on `sequence_output`."""

from __future__ import annotations

from typing import Any

import keras

from albert_tf.models.dense_task_model import DenseTaskModel
from albert_tf.models.encoder import AlbertEncoder


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertSpanQA(DenseTaskModel):
    """Extractive QA: one dense layer [H -> 2] over every position's `sequence_output`.

    The original `run_squad_v1.py` head (`cls/squad/output_weights` [2, H], row 0 start, row
    1 end) and Hugging Face's `AlbertForQuestionAnswering` (`qa_outputs`) alike; v2.0 uses the
    same head, a no-answer being the span at [CLS]. Outputs float32 logits `[B, S, 2]`
    (`[..., 0]` start, `[..., 1]` end) whatever the dtype policy; train with `span_loss`. The
    encoder's pooler is frozen: nothing it computes reaches the logits.

    Args:
        encoder: an `AlbertEncoder` (pretrained or fresh), or its serialized form.
        dtype: dtype policy of the head; the encoder keeps its own.
        **kwargs: `keras.Model` arguments (name, ...).

    Example:
        >>> from albert_tf.config import AlbertConfig
        >>> config = AlbertConfig(vocab_size=30, embedding_size=8, hidden_size=16,
        ...                       num_hidden_layers=1, num_attention_heads=2,
        ...                       intermediate_size=32, max_position_embeddings=16)
        >>> model = AlbertSpanQA(AlbertEncoder(config))
        >>> ids = keras.ops.ones([2, 10], "int32")
        >>> model({"input_word_ids": ids, "input_mask": ids, "input_type_ids": ids * 0}).shape
        TensorShape([2, 10, 2])
    """

    def __init__(self, encoder: AlbertEncoder | dict[str, Any], dtype: Any = None, **kwargs):
        super().__init__(encoder, 2, "qa_outputs", reads="sequence_output", dtype=dtype, **kwargs)


@keras.saving.register_keras_serializable(package="albert_tf")
def span_loss(labels, logits):
    """Mean of the start and end cross-entropies; `labels` int [B, 2], `logits` [B, S, 2].

    Example:
        >>> import numpy as np
        >>> logits = np.zeros([1, 4, 2], "float32")
        >>> round(float(span_loss(np.array([[1, 2]]), logits)[0]), 4)  # log(4)
        1.3863
    """
    labels = keras.ops.cast(labels, "int32")
    start = keras.losses.sparse_categorical_crossentropy(
        labels[:, 0], logits[:, :, 0], from_logits=True
    )
    end = keras.losses.sparse_categorical_crossentropy(
        labels[:, 1], logits[:, :, 1], from_logits=True
    )
    return (start + end) / 2.0
