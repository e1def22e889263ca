"""`TaskHead`: how a fine-tuned task model's head converts (see `task_heads.py` for the table)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import keras
import numpy as np

from albert_tf.convert.named_weight import NamedWeight
from albert_tf.models.encoder import AlbertEncoder


@dataclasses.dataclass(frozen=True)
class TaskHead:
    """How one kind of fine-tuned model's head converts.

    Every albert_tf task model keeps its output layer in `model.head` (a Dense [H, units]), so a
    head is named by two prefixes: Hugging Face's Linear (`<hf_layer>.weight` [units, H],
    `.bias`) and the original release's (`<tf1_prefix>output_weights` [units, H],
    `output_bias`).

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

    def weights(self, model: keras.Model) -> list[NamedWeight]:
        """The head's kernel and bias with their Hugging Face and TF1 names."""
        tf1 = self.tf1_prefix
        return [
            NamedWeight(
                None if tf1 is None else f"{tf1}output_weights",
                f"{self.hf_layer}.weight",
                model.head.kernel,
                hf_transpose=True,
                tf1_transpose=True,
            ),
            NamedWeight(
                None if tf1 is None else f"{tf1}output_bias",
                f"{self.hf_layer}.bias",
                model.head.bias,
            ),
        ]

    def from_tf1(
        self, encoder: AlbertEncoder, tensors: dict[str, np.ndarray]
    ) -> keras.Model | None:
        """This head's model when an original checkpoint's `tensors` hold it, else None."""
        kernel = f"{self.tf1_prefix}output_weights"
        if self.tf1_prefix is None or not self.tf1_loads or kernel not in tensors:
            return None
        return self.build(encoder, {"num_labels": tensors[kernel].shape[0]})
