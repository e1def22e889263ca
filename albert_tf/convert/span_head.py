"""The extractive QA head: `AlbertSpanQA`.

Hugging Face `AlbertForQuestionAnswering`: `qa_outputs` Linear(H, 2) on `sequence_output`
(column 0 start, column 1 end; `num_labels` 2). The original release's `run_squad_v1.py`
names the same dense layer `cls/squad/output_weights` [2, H] and `cls/squad/output_bias` [2].
Hugging Face's QA model has no pooler: loading keeps ours as initialized, saving leaves it
out. (The original v2 head, XLNet-style with an answer classifier, has no counterpart here.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from albert_tf.convert.named_weight import NamedWeight
from albert_tf.convert.task_head import TaskHead
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.span_qa import AlbertSpanQA

TF1_WEIGHTS = "cls/squad/output_weights"
TF1_BIAS = "cls/squad/output_bias"


def _weights(model: AlbertSpanQA) -> list[NamedWeight]:
    head = model.head
    return [
        NamedWeight(
            TF1_WEIGHTS, "qa_outputs.weight", head.kernel, hf_transpose=True, tf1_transpose=True
        ),
        NamedWeight(TF1_BIAS, "qa_outputs.bias", head.bias),
    ]


def _build(encoder: AlbertEncoder, values: dict[str, Any]) -> AlbertSpanQA:
    num_labels = len(values["id2label"]) if "id2label" in values else values.get("num_labels", 2)
    if num_labels != 2:
        raise ValueError(f"AlbertForQuestionAnswering with num_labels={num_labels}; expected 2.")
    return AlbertSpanQA(encoder)


def _hf_config(model: AlbertSpanQA) -> dict[str, Any]:
    del model
    return {"num_labels": 2}


def _from_tf1(encoder: AlbertEncoder, tensors: dict[str, np.ndarray]) -> AlbertSpanQA | None:
    return AlbertSpanQA(encoder) if TF1_WEIGHTS in tensors else None


SPAN_QA = TaskHead(
    model_class=AlbertSpanQA,
    hf_architecture="AlbertForQuestionAnswering",
    weights=_weights,
    build=_build,
    hf_config=_hf_config,
    from_tf1=_from_tf1,
    hf_pooler=False,
)
