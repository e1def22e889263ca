"""`export_task_model`: a fine-tuned task model behind its family's SavedModel signatures.

Every task family serves the same way: the model is copied with its weights stored in the
compute dtype (`serving_copy`), its forward pass runs on constant weights (`frozen_inference`),
and the family's signature functions wrap that forward pass with in-graph tokenization and
decoding; `export_endpoints` writes the whole atomically. A family supplies only its
signatures (a function of the forward pass) and the featurizer layers they use.

Illustration (not run):
    def signatures(predict):
        return {"classify_text": (lambda text: {"logits": predict(features(text))}, [spec])}

    export_task_model("/tmp/export", model, signatures, assets=[features])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import keras
import tensorflow as tf

from albert_tf.export.endpoints import Endpoints, export_endpoints
from albert_tf.runtime.frozen_weights import frozen_inference
from albert_tf.runtime.serving_weights import serving_copy

# The model's forward pass: features -> outputs (its weights as graph constants).
Predict = Callable[[Any], Any]


def choice_outputs(logits: tf.Tensor, names: tf.Tensor, kind: str) -> dict[str, tf.Tensor]:
    """A choice among classes or options: `logits` (float32), their softmax `probabilities`,
    the best one's id `<kind>_ids` and its name `<kind>s` (`names`: a string per id)."""
    logits = tf.cast(logits, tf.float32)
    ids = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return {
        "logits": logits,
        "probabilities": tf.nn.softmax(logits, axis=-1),
        f"{kind}_ids": ids,
        f"{kind}s": tf.gather(names, ids),
    }


def export_task_model(
    export_dir: str,
    model: keras.Model,
    signatures: Callable[[Predict], Endpoints],
    assets: Sequence[keras.layers.Layer],
    overwrite: bool = False,
) -> str:
    """Writes the SavedModel at `export_dir` (complete, then renamed); returns its path.

    Args:
        export_dir: directory to create.
        model: the fine-tuned task model.
        signatures: signature name -> (function, input specs), given the model's forward pass.
        assets: the built featurizer layers the signatures call (tokenizers: their
            SentencePiece model is saved with them).
        overwrite: replace an existing `export_dir` once the new one is complete.
    """
    served = serving_copy(model)
    endpoints = signatures(frozen_inference(served))
    return export_endpoints(export_dir, endpoints, list(assets), overwrite, frozen=[served])
