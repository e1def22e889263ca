"""`AlbertTokenClassifier`: an ALBERT encoder with a dropout + dense head on `sequence_output`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import keras

from albert_tf.models.dense_task_model import DenseTaskModel
from albert_tf.models.encoder import AlbertEncoder


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertTokenClassifier(DenseTaskModel):
    """Token classifier (tagger), as Hugging Face's `AlbertForTokenClassification`.

    `sequence_output` -> dropout -> dense(num_labels) at every position. The dense layer is
    initialized with a truncated normal of the encoder's `initializer_range` and zero bias.
    Outputs are float32 logits `[B, T, num_labels]` whatever the dtype policy; which positions
    count (the first piece of each word) is the data's business (`finetune.tagging`). The
    encoder's pooler is frozen: nothing it computes reaches the logits.

    Args:
        encoder: an `AlbertEncoder` (pretrained or fresh), or its serialized form.
        num_labels: number of tags.
        dropout_rate: dropout on `sequence_output` (HF: `classifier_dropout_prob`, 0.1).
        labels: the tag names in id order (saved with the model, and as HF `id2label`).
        dtype: dtype policy of the head (e.g. "mixed_bfloat16"); the encoder keeps its own.
        **kwargs: `keras.Model` arguments (name, ...).

    Example:
        >>> from albert_tf.config import AlbertConfig
        >>> encoder = AlbertEncoder(AlbertConfig(vocab_size=40, embedding_size=8, hidden_size=16,
        ...     num_hidden_layers=1, num_attention_heads=2, intermediate_size=16))
        >>> model = AlbertTokenClassifier(encoder, num_labels=5)
        >>> ids = keras.ops.ones((2, 7), "int32")
        >>> model({"input_word_ids": ids, "input_mask": ids, "input_type_ids": 0 * ids}).shape
        TensorShape([2, 7, 5])
    """

    def __init__(
        self,
        encoder: AlbertEncoder | dict[str, Any],
        num_labels: int,
        dropout_rate: float = 0.1,
        labels: Sequence[str] | None = None,
        dtype: Any = None,
        **kwargs,
    ):
        if num_labels < 1:
            raise ValueError(f"num_labels must be >= 1, got {num_labels}.")
        if labels is not None and len(labels) != num_labels:
            raise ValueError(f"{len(labels)} labels for num_labels={num_labels}.")
        super().__init__(
            encoder,
            num_labels,
            "token_classifier",
            reads="sequence_output",
            dropout_rate=dropout_rate,
            dropout_name="token_dropout",
            dtype=dtype,
            **kwargs,
        )
        self.num_labels = num_labels
        self.labels = tuple(labels) if labels is not None else None

    def head_config(self) -> dict[str, Any]:
        return {
            "num_labels": self.num_labels,
            "dropout_rate": self.dropout_rate,
            "labels": list(self.labels) if self.labels is not None else None,
        }
