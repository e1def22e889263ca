"""The sentence (pair) classification / regression head: `AlbertClassifier`.

Hugging Face `AlbertForSequenceClassification`: dropout + `classifier` Linear(H, num_labels)
on the pooled output; `config.json` has `num_labels` (`id2label`) and `problem_type`
("single_label_classification", or "regression" with one output). The original release's
`run_classifier.py` names the same dense layer `output_weights` [num_labels, H] and
`output_bias` [num_labels].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from albert_tf.convert.named_weight import NamedWeight
from albert_tf.convert.task_head import TaskHead
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.models.encoder import AlbertEncoder


def _weights(model: AlbertClassifier) -> list[NamedWeight]:
    head = model.head
    return [
        NamedWeight(
            "output_weights",
            "classifier.weight",
            head.kernel,
            hf_transpose=True,
            tf1_transpose=True,
        ),
        NamedWeight("output_bias", "classifier.bias", head.bias),
    ]


def _build(encoder: AlbertEncoder, values: dict[str, Any]) -> AlbertClassifier:
    num_labels = len(values["id2label"]) if "id2label" in values else values.get("num_labels", 2)
    dropout = values.get("classifier_dropout_prob")
    return AlbertClassifier(encoder, num_labels, dropout_rate=0.1 if dropout is None else dropout)


def _hf_config(model: AlbertClassifier) -> dict[str, Any]:
    labels = {str(i): f"LABEL_{i}" for i in range(model.num_outputs)}
    regression = model.num_outputs == 1
    return {
        "num_labels": model.num_outputs,
        "id2label": labels,
        "label2id": {name: int(i) for i, name in labels.items()},
        "problem_type": "regression" if regression else "single_label_classification",
        "classifier_dropout_prob": model.dropout_rate,
    }


def _from_tf1(encoder: AlbertEncoder, tensors: dict[str, np.ndarray]) -> AlbertClassifier | None:
    if "output_weights" not in tensors:
        return None
    return AlbertClassifier(encoder, num_outputs=tensors["output_weights"].shape[0])


SEQUENCE_CLASSIFICATION = TaskHead(
    model_class=AlbertClassifier,
    hf_architecture="AlbertForSequenceClassification",
    weights=_weights,
    build=_build,
    hf_config=_hf_config,
    from_tf1=_from_tf1,
    keras_hub_task="AlbertTextClassifier",
)
