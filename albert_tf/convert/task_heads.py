"""The table of fine-tuned task heads that convert to and from Hugging Face and the original.

A task model is an `AlbertEncoder` plus a dense head (`model.encoder`, `model.head`). A
`TaskHead` says how that head is named outside albert_tf and how to rebuild the albert_tf model
from a Hugging Face `config.json`; `TASK_HEADS` lists every head the converters know, one row
each. A new task family with a head adds its row here.

* Sequence classification: HF `AlbertForSequenceClassification`, dropout + `classifier`
  Linear(H, num_labels) on the pooled output; `num_labels` (`id2label`) and `problem_type`
  ("regression" with one output). The original `run_classifier.py`: `output_weights`
  [num_labels, H], `output_bias`.
* Extractive QA: HF `AlbertForQuestionAnswering`, `qa_outputs` Linear(H, 2) on
  `sequence_output` (column 0 start, 1 end), no pooler. The original `run_squad_v1.py`:
  `cls/squad/output_weights` [2, H]. (The original v2 head, XLNet-style with an answer
  classifier, has no counterpart here.)
* Multiple choice: HF `AlbertForMultipleChoice`, dropout + `classifier` Linear(H, 1) on the
  pooled output of every (context, option) sequence. The original `run_race.py` names it like
  a one-output classifier, so an original checkpoint cannot say which it holds: it loads as a
  one-output `AlbertClassifier`, whose weights an `AlbertMultipleChoice` over the same encoder
  can take (`AlbertMultipleChoice(model.encoder)`, then copy `model.head`).
* Token classification: HF `AlbertForTokenClassification`, dropout + `classifier` Linear(H,
  num_labels) over `sequence_output`, no pooler. The original release has no such head.

Example:
    >>> task_head_for_architecture("AlbertForSequenceClassification").model_class.__name__
    'AlbertClassifier'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import keras
import numpy as np

from albert_tf.models.classifier import AlbertClassifier
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.multiple_choice import AlbertMultipleChoice
from albert_tf.models.span_qa import AlbertSpanQA
from albert_tf.models.token_classifier import AlbertTokenClassifier


@dataclasses.dataclass(frozen=True)
class TaskHead:
    """How one kind of fine-tuned model's head converts.

    Every albert_tf task model keeps its output layer in `model.head` (a Dense [H, units]), so a
    head is named by two prefixes: Hugging Face's Linear (`<hf_layer>.weight` [units, H],
    `.bias`) and the original release's (`<tf1_prefix>output_weights` [units, H],
    `output_bias`); `weight_names.named_weights` names its kernel and bias from them.

    Attributes:
        model_class: the albert_tf Keras model class (encoder + head).
        hf_architecture: the Hugging Face class (`config.json` "architectures").
        hf_layer: the Hugging Face name of the output layer (without the `albert.` prefix).
        tf1_prefix: the original release's prefix of `output_weights`/`output_bias`, or None
            where it has no such head.
        tf1_loads: an original checkpoint holding those names loads as this head (False where
            another head writes the same names and wins, as multiple choice's one-output
            scorer is a one-output classifier in the original layout).
        build: the albert_tf model for an encoder and a Hugging Face `config.json` dict (an
            original checkpoint passes `{"num_labels": rows of output_weights}`).
        hf_config: the `config.json` entries the head adds (e.g. `num_labels`, `id2label`).
        hf_pooler: whether the Hugging Face model has the pooler (`AlbertForQuestionAnswering`
            and token classification build `AlbertModel(add_pooling_layer=False)`); without
            it the pooler keeps its weights on load and is left out on save.
        keras_hub_task: the keras-hub task class of this head (`registered_name` without
            `keras_hub>`); None where keras-hub has none (keras_hub_preset.py refuses those).
        task_json: the `task.json` of a fine-tuning run of this head's family (its `family`
            and `TaskInfo` fields), for the model and a Hugging Face `config.json` dict (`{}`
            for other sources): a converted model becomes a finished run every export reads.
    """

    model_class: type[keras.Model]
    hf_architecture: str
    hf_layer: str
    tf1_prefix: str | None
    build: Callable[[AlbertEncoder, dict[str, Any]], keras.Model]
    hf_config: Callable[[keras.Model], dict[str, Any]]
    tf1_loads: bool = True
    hf_pooler: bool = True
    keras_hub_task: str | None = None
    task_json: Callable[[keras.Model, dict[str, Any]], dict[str, Any]] | None = None

    def from_tf1(
        self, encoder: AlbertEncoder, tensors: dict[str, np.ndarray]
    ) -> keras.Model | None:
        """This head's model when an original checkpoint's `tensors` hold it, else None."""
        kernel = f"{self.tf1_prefix}output_weights"
        if self.tf1_prefix is None or not self.tf1_loads or kernel not in tensors:
            return None
        return self.build(encoder, {"num_labels": tensors[kernel].shape[0]})


def _dropout(values: dict[str, Any]) -> float:
    dropout = values.get("classifier_dropout_prob")
    return 0.1 if dropout is None else dropout


def _label_names(values: dict[str, Any]) -> list[str]:
    """`id2label` in id order, else `LABEL_i` for `num_labels` (HF's default: 2)."""
    id2label = values.get("id2label")
    if id2label:
        return [id2label[key] for key in sorted(id2label, key=int)]
    return [f"LABEL_{i}" for i in range(values.get("num_labels", 2))]


def _labels_config(labels: Sequence[str], dropout_rate: float) -> dict[str, Any]:
    return {
        "num_labels": len(labels),
        "id2label": {str(i): name for i, name in enumerate(labels)},
        "label2id": {name: i for i, name in enumerate(labels)},
        "classifier_dropout_prob": dropout_rate,
    }


def _run_length(model: keras.Model, length: int) -> int:
    """A fine-tuning length for a converted model: the original recipe's, within its positions."""
    return min(length, model.encoder.config.max_position_embeddings)


def _classifier_task(model: AlbertClassifier, values: dict[str, Any]) -> dict[str, Any]:
    regression = model.num_outputs == 1 and values.get("problem_type") == "regression"
    labels = None if regression else _label_names({"num_labels": model.num_outputs, **values})
    return {
        "family": "classification",
        "task": values.get("finetuning_task") or "converted",
        "max_seq_length": _run_length(model, 128),
        "problem": "regression" if regression else "classification",
        "labels": labels,
        "metrics": ["pearson", "spearman"] if regression else ["accuracy"],
        "is_pair": False,
    }


def _span_qa_task(model: AlbertSpanQA, values: dict[str, Any]) -> dict[str, Any]:
    # The original run_squad defaults; SQuAD v1 decoding (always a span) unless trained for v2.
    return {
        "family": "span_qa",
        "task": "squad",
        "max_seq_length": _run_length(model, 384),
        "version_2_with_negative": False,
        "doc_stride": 128,
        "max_query_length": 64,
    }


def _choice_task(model: AlbertMultipleChoice, values: dict[str, Any]) -> dict[str, Any]:
    # The original run_race defaults.
    return {
        "family": "multiple_choice",
        "task": "race",
        "max_seq_length": _run_length(model, 512),
        "max_qa_length": 128,
        "blank_per_underscore": False,
        "baseline_answer": 0,
    }


def _tagger_task(model: AlbertTokenClassifier, values: dict[str, Any]) -> dict[str, Any]:
    labels = list(model.labels or _label_names({"num_labels": model.num_labels, **values}))
    return {
        "family": "tagging",
        "task": "tagging",
        "max_seq_length": _run_length(model, 128),
        "labels": labels,
        "tag_scheme": "iob2",
        "label_all_pieces": False,
    }


def _span_qa(encoder, values: dict[str, Any]) -> AlbertSpanQA:
    num_labels = len(_label_names(values))
    if num_labels != 2:
        raise ValueError(f"AlbertForQuestionAnswering with num_labels={num_labels}; expected 2.")
    return AlbertSpanQA(encoder)


def _classifier_config(model: AlbertClassifier) -> dict[str, Any]:
    labels = [f"LABEL_{i}" for i in range(model.num_outputs)]
    problem = "regression" if model.num_outputs == 1 else "single_label_classification"
    return {**_labels_config(labels, model.dropout_rate), "problem_type": problem}


def _tagger_config(model: AlbertTokenClassifier) -> dict[str, Any]:
    labels = model.labels or [f"LABEL_{i}" for i in range(model.num_labels)]
    return _labels_config(labels, model.dropout_rate)


TASK_HEADS: tuple[TaskHead, ...] = (
    TaskHead(
        AlbertClassifier,
        "AlbertForSequenceClassification",
        hf_layer="classifier",
        tf1_prefix="",
        build=lambda encoder, values: AlbertClassifier(
            encoder, len(_label_names(values)), dropout_rate=_dropout(values)
        ),
        hf_config=_classifier_config,
        keras_hub_task="AlbertTextClassifier",
        task_json=_classifier_task,
    ),
    TaskHead(
        AlbertSpanQA,
        "AlbertForQuestionAnswering",
        hf_layer="qa_outputs",
        tf1_prefix="cls/squad/",
        build=_span_qa,
        hf_config=lambda model: {"num_labels": 2},
        hf_pooler=False,
        task_json=_span_qa_task,
    ),
    TaskHead(
        AlbertMultipleChoice,
        "AlbertForMultipleChoice",
        hf_layer="classifier",
        tf1_prefix="",
        tf1_loads=False,
        build=lambda encoder, values: AlbertMultipleChoice(encoder, _dropout(values)),
        hf_config=lambda model: {"classifier_dropout_prob": model.dropout_rate},
        task_json=_choice_task,
    ),
    TaskHead(
        AlbertTokenClassifier,
        "AlbertForTokenClassification",
        hf_layer="classifier",
        tf1_prefix=None,
        build=lambda encoder, values: AlbertTokenClassifier(
            encoder,
            len(_label_names(values)),
            dropout_rate=_dropout(values),
            labels=_label_names(values),
        ),
        hf_config=_tagger_config,
        hf_pooler=False,
        task_json=_tagger_task,
    ),
)


def task_head_for_model(model: keras.Model) -> TaskHead | None:
    """The `TaskHead` of a task model; None for an encoder or pretrainer."""
    for head in TASK_HEADS:
        if isinstance(model, head.model_class):
            return head
    return None


def task_head_for_architecture(architecture: str) -> TaskHead | None:
    """The `TaskHead` of a Hugging Face architecture name; None for other architectures."""
    for head in TASK_HEADS:
        if head.hf_architecture == architecture:
            return head
    return None
