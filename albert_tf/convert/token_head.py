"""The token classification head: `AlbertTokenClassifier`.

Hugging Face `AlbertForTokenClassification`: dropout + `classifier` Linear(H, num_labels) over
`sequence_output`; `config.json` has `num_labels` / `id2label` and `classifier_dropout_prob`.
The original release has no token classification head, so there is no TF1 layout (the encoder
of a converted model still saves as TF1; the head has no original names).
"""

from __future__ import annotations

from typing import Any

from albert_tf.convert.named_weight import NamedWeight
from albert_tf.convert.task_head import TaskHead
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.token_classifier import AlbertTokenClassifier


def _weights(model: AlbertTokenClassifier) -> list[NamedWeight]:
    return [
        NamedWeight(None, "classifier.weight", model.head.kernel, hf_transpose=True),
        NamedWeight(None, "classifier.bias", model.head.bias),
    ]


def _build(encoder: AlbertEncoder, values: dict[str, Any]) -> AlbertTokenClassifier:
    id2label = values.get("id2label")
    if id2label:
        labels = [id2label[key] for key in sorted(id2label, key=int)]
    else:
        labels = [f"LABEL_{i}" for i in range(values.get("num_labels", 2))]
    dropout = values.get("classifier_dropout_prob")
    return AlbertTokenClassifier(
        encoder, len(labels), dropout_rate=0.1 if dropout is None else dropout, labels=labels
    )


def _hf_config(model: AlbertTokenClassifier) -> dict[str, Any]:
    labels = model.labels or [f"LABEL_{i}" for i in range(model.num_labels)]
    return {
        "num_labels": model.num_labels,
        "id2label": {str(i): name for i, name in enumerate(labels)},
        "label2id": {name: i for i, name in enumerate(labels)},
        "classifier_dropout_prob": model.dropout_rate,
    }


TOKEN_CLASSIFICATION = TaskHead(
    model_class=AlbertTokenClassifier,
    hf_architecture="AlbertForTokenClassification",
    weights=_weights,
    build=_build,
    hf_config=_hf_config,
    hf_pooler=False,
)
