"""`AlbertClassifier`: an ALBERT encoder with a dropout + dense head on `pooled_output`."""

from __future__ import annotations

from typing import Any

import keras

from albert_tf.models.dense_task_model import DenseTaskModel
from albert_tf.models.encoder import AlbertEncoder


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertClassifier(DenseTaskModel):
    """Sentence (pair) classifier or regressor, as the original `run_classifier.py` builds it.

    `pooled_output` ([CLS] through the tanh pooler) -> dropout -> dense. The dense layer is
    initialized with a truncated normal of the encoder's `initializer_range` (0.02) and zero
    bias, as in the original. Outputs are float32 logits `[B, num_outputs]` (or the score
    `[B, 1]` of a regression, `num_outputs=1`) whatever the dtype policy.

    Args:
        encoder: an `AlbertEncoder` (pretrained or fresh), or its serialized form.
        num_outputs: number of classes, or 1 for regression.
        dropout_rate: dropout on `pooled_output` (original: 0.1).
        dtype: dtype policy of the head (e.g. "mixed_bfloat16"); the encoder keeps its own.
        **kwargs: `keras.Model` arguments (name, ...).

    Inputs: the encoder's dict of int32 `input_word_ids`, `input_mask`, `input_type_ids`.

    Illustration (not run):
        encoder = AlbertEncoder(AlbertConfig.preset("albert_tiny"))
        model = AlbertClassifier(encoder, num_outputs=2)
        model.compile(optimizer="adam",
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        # model.fit(dataset_of_(features, label_id))
    """

    def __init__(
        self,
        encoder: AlbertEncoder | dict[str, Any],
        num_outputs: int,
        dropout_rate: float = 0.1,
        dtype: Any = None,
        **kwargs,
    ):
        if num_outputs < 1:
            raise ValueError(f"num_outputs must be >= 1, got {num_outputs}.")
        super().__init__(
            encoder, num_outputs, "classifier", dropout_rate=dropout_rate, dtype=dtype, **kwargs
        )
        self.num_outputs = num_outputs

    def head_config(self) -> dict[str, Any]:
        return {"num_outputs": self.num_outputs, "dropout_rate": self.dropout_rate}
