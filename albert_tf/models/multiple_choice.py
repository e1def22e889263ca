"""`AlbertMultipleChoice`: one score per (context, option) pair, softmax over the options."""

from __future__ import annotations

from typing import Any

import keras

from albert_tf.models.dense_task_model import DenseTaskModel
from albert_tf.models.encoder import AlbertEncoder


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertMultipleChoice(DenseTaskModel):
    """Multiple choice as the original `run_race.py` builds it.

    Every option is its own sequence `[CLS] context [SEP] question+option [SEP]`; the encoder's
    `pooled_output` -> dropout -> dense(1) gives its score, and a softmax over a question's
    options gives their probabilities (the loss is softmax cross-entropy on those logits).
    Options whose `input_mask` is all zero are padding (questions with fewer options than the
    batch's widest): their logit is `dense_task_model.PADDED_OPTION_LOGIT`, so they get
    probability 0.

    Args:
        encoder: an `AlbertEncoder` (pretrained or fresh), or its serialized form.
        dropout_rate: dropout on `pooled_output` (original: 0.1).
        dtype: dtype policy of the head; the encoder keeps its own.
        **kwargs: `keras.Model` arguments.

    Inputs: int32 `input_word_ids`, `input_mask`, `input_type_ids`, each `[B, N, L]`.
    Output: float32 logits `[B, N]`.

    Example:
        >>> import tensorflow as tf
        >>> from albert_tf.config import AlbertConfig
        >>> encoder = AlbertEncoder(AlbertConfig(vocab_size=50, embedding_size=8,
        ...     hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        ...     intermediate_size=32, max_position_embeddings=16))
        >>> model = AlbertMultipleChoice(encoder)
        >>> ids = tf.constant([[[2, 7, 3, 9, 3], [2, 7, 3, 0, 0]]])  # 1 question, 2 options
        >>> mask = tf.constant([[[1, 1, 1, 1, 1], [0, 0, 0, 0, 0]]])  # option 2 is padding
        >>> logits = model({"input_word_ids": ids, "input_mask": mask,
        ...                 "input_type_ids": tf.zeros_like(ids)})
        >>> tf.nn.softmax(logits).numpy().round(3).tolist()
        [[1.0, 0.0]]
    """

    def __init__(
        self,
        encoder: AlbertEncoder | dict[str, Any],
        dropout_rate: float = 0.1,
        dtype: Any = None,
        **kwargs,
    ):
        super().__init__(
            encoder, 1, "classifier", dropout_rate=dropout_rate, options=True, dtype=dtype, **kwargs
        )

    def head_config(self) -> dict[str, Any]:
        return {"dropout_rate": self.dropout_rate}
