"""The multiple-choice head: `AlbertMultipleChoice`.

Hugging Face `AlbertForMultipleChoice`: dropout + `classifier` Linear(H, 1) on the pooled output
of every (context, option) sequence, logits reshaped to `[batch, num_choices]`; `config.json`
adds only `classifier_dropout_prob`. The original `run_race.py` names the same dense layer
`output_weights` [1, H] and `output_bias` [1], exactly like a one-output `run_classifier.py`
head, so an original checkpoint cannot say which it holds: it loads as a one-output
`AlbertClassifier` (`from_tf1` is None here), whose weights an `AlbertMultipleChoice` over
the same encoder can take (`AlbertMultipleChoice(model.encoder)` then copy `model.head`).
"""

from __future__ import annotations

from typing import Any

from albert_tf.convert.classifier_head import SEQUENCE_CLASSIFICATION
from albert_tf.convert.task_head import TaskHead
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.multiple_choice import AlbertMultipleChoice


def _build(encoder: AlbertEncoder, values: dict[str, Any]) -> AlbertMultipleChoice:
    dropout = values.get("classifier_dropout_prob")
    return AlbertMultipleChoice(encoder, dropout_rate=0.1 if dropout is None else dropout)


def _hf_config(model: AlbertMultipleChoice) -> dict[str, Any]:
    return {"classifier_dropout_prob": model.dropout_rate}


MULTIPLE_CHOICE = TaskHead(
    model_class=AlbertMultipleChoice,
    hf_architecture="AlbertForMultipleChoice",
    # The same dense layer, `model.head`, under the same names as the classifier's.
    weights=SEQUENCE_CLASSIFICATION.weights,
    build=_build,
    hf_config=_hf_config,
    from_tf1=None,
)
