"""`TaskHead`: how a fine-tuned task model's head converts (see `task_heads.py` for the list)."""

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

    Attributes:
        model_class: the albert_tf Keras model class (encoder + head).
        hf_architecture: the Hugging Face class (`config.json` "architectures").
        weights: the head's weights of a model, with HF names without the `albert.` prefix
            and TF1 names (None where the original release has no such head).
        build: the albert_tf model for an encoder and a Hugging Face `config.json` dict.
        hf_config: the `config.json` entries the head adds (e.g. `num_labels`, `id2label`).
        from_tf1: the albert_tf model for an encoder and an original checkpoint's tensors
            when they hold this head, else None; None when the original has no such head.
        hf_pooler: whether the Hugging Face model has the pooler (`AlbertForQuestionAnswering`
            and token classification build `AlbertModel(add_pooling_layer=False)`); without
            it the pooler keeps its weights on load and is left out on save.
        keras_hub_task: the keras-hub task class of this head (`registered_name` without
            `keras_hub>`); None where keras-hub has none (keras_hub_preset.py refuses those).
    """

    model_class: type[keras.Model]
    hf_architecture: str
    weights: Callable[[keras.Model], list[NamedWeight]]
    build: Callable[[AlbertEncoder, dict[str, Any]], keras.Model]
    hf_config: Callable[[keras.Model], dict[str, Any]]
    from_tf1: Callable[[AlbertEncoder, dict[str, np.ndarray]], keras.Model | None] | None = None
    hf_pooler: bool = True
    keras_hub_task: str | None = None
