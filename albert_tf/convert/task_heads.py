"""The fine-tuned task models that convert to and from Hugging Face and the original release.

A task model is an `AlbertEncoder` plus a head (`model.encoder` holds the encoder). A
`TaskHead` (task_head.py) says how that head is named outside albert_tf and how to rebuild the
albert_tf model from a Hugging Face `config.json`. `TASK_HEADS` lists every head the converters
know; a new task family adds its head module (like classifier_head.py) and one line here.

Example:
    >>> task_head_for_architecture("AlbertForSequenceClassification").model_class.__name__
    'AlbertClassifier'
"""

from __future__ import annotations

import keras

from albert_tf.convert.classifier_head import SEQUENCE_CLASSIFICATION
from albert_tf.convert.multiple_choice_head import MULTIPLE_CHOICE
from albert_tf.convert.span_head import SPAN_QA
from albert_tf.convert.task_head import TaskHead
from albert_tf.convert.token_head import TOKEN_CLASSIFICATION

TASK_HEADS: tuple[TaskHead, ...] = (
    SEQUENCE_CLASSIFICATION,
    SPAN_QA,
    MULTIPLE_CHOICE,
    TOKEN_CLASSIFICATION,
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
