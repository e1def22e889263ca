"""`model_kind`: the one name of each kind of model export knows, by its Keras class.

Every export says what it holds with these names: the `kind` of an `ExportSource`, the ONNX
graph and pre-step chosen per kind (`albert_tf.export.onnx`), the LiteRT outputs and file names
(`<kind>_<ids|text>_<quantization>_b<batch>.tflite`), the `kind` of `onnx.json` and
`litert.json`, and the encoder a SavedModel export takes. A task family with its own model
class adds its line to `MODEL_KINDS`.

Example:
    >>> [kind for _, kind in MODEL_KINDS]
    ['encoder', 'classifier', 'multiple_choice', 'span_qa', 'tagging']
"""

from __future__ import annotations

import keras

from albert_tf.errors import UserError
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.multiple_choice import AlbertMultipleChoice
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.models.span_qa import AlbertSpanQA
from albert_tf.models.token_classifier import AlbertTokenClassifier

ENCODER = "encoder"
# (model classes, kind), in the order they are matched.
MODEL_KINDS: tuple[tuple[tuple[type[keras.Model], ...], str], ...] = (
    ((AlbertEncoder, AlbertPretrainer), ENCODER),  # A pretrainer exports its encoder.
    ((AlbertClassifier,), "classifier"),
    ((AlbertMultipleChoice,), "multiple_choice"),
    ((AlbertSpanQA,), "span_qa"),
    ((AlbertTokenClassifier,), "tagging"),
)


def model_kind(model: keras.Model) -> str:
    """The kind of `model` (`MODEL_KINDS`); a `UserError` for a model export does not know."""
    for classes, kind in MODEL_KINDS:
        if isinstance(model, classes):
            return kind
    raise UserError(
        f"a {type(model).__name__}, not an ALBERT model albert_tf exports",
        fix="export an ALBERT encoder or pretrainer, or a classification, multiple-choice, span "
        "QA or tagging model (a new task family adds its model class to MODEL_KINDS in "
        "albert_tf/export/model_kind.py)",
    )
