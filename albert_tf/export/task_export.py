"""`export_task_model`: a fine-tuned task model behind its family's SavedModel signatures.

Every task family serves the same way: the model is copied with its weights stored in the
compute dtype (`serving_copy`: plain chains, whatever it trained with), its forward pass is a
`tf.function` over the copy's variables (compiled by XLA for one row per call where the
`Runtime` says so: `compiled_for_one_row`), and the family's signature functions wrap that
forward pass with in-graph tokenization and decoding; `export_endpoints` writes the whole
atomically. A family supplies only its signatures (a function of the forward pass) and the
featurizer layers they use.

Illustration (not run):
    def signatures(predict):
        return {"classify_text": (lambda text: {"logits": predict(features(text))}, [spec])}

    export_task_model("/tmp/export", model, signatures, assets=[features],
                      runtime=Runtime.plain())
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import keras
import tensorflow as tf

from albert_tf.errors import UserError
from albert_tf.export.endpoints import Endpoints, export_endpoints
from albert_tf.export.serving_copy import serving_copy
from albert_tf.runtime.compiled_serving import compiled_for_one_row
from albert_tf.runtime.runtime import Runtime

# The model's forward pass: features -> outputs.
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


def check_label_count(labels: Sequence[str], logits: tf.Tensor, outputs: str = "outputs") -> None:
    """Refuses `labels` that do not name each of the model's outputs (the last axis of its
    `logits`, known where the signatures are traced): a name per id, or the served names
    would be wrong (too many) or out of range (too few). `outputs`: what an output is called."""
    count = logits.shape[-1]
    if count is not None and len(labels) != count:
        raise UserError(
            f"{len(labels)} labels for a model with {count} {outputs}",
            fix="give the labels the model was trained with, in id order",
        )


def export_task_model(
    export_dir: str,
    model: keras.Model,
    signatures: Callable[[Predict], Endpoints],
    assets: Sequence[keras.layers.Layer],
    overwrite: bool = False,
    *,
    runtime: Runtime,
) -> str:
    """Writes the SavedModel at `export_dir` (complete, then renamed); returns its path.

    Args:
        export_dir: directory to create.
        model: the fine-tuned task model.
        signatures: signature name -> (function, input specs), given the model's forward pass.
        assets: the built featurizer layers the signatures call (tokenizers: their
            SentencePiece model is saved with them).
        overwrite: replace an existing `export_dir` once the new one is complete.
        runtime: its `compiled_serving` compiles one-row calls (`Runtime.plain()`: none).
    """
    served = serving_copy(model)
    endpoints = signatures(model_forward(served, runtime))
    return export_endpoints(export_dir, endpoints, [*assets, served], overwrite)


def model_forward(model: keras.Model, runtime: Runtime) -> Predict:
    """`model(inputs, training=False)` as a `tf.function` of any batch and length, compiled
    for one row per call where `runtime.compiled_serving`.

    One input signature: every serving signature that calls it shares one trace of the model.
    """
    signature = [tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), model.input)]
    forward = tf.function(lambda inputs: model(inputs, training=False), input_signature=signature)
    return compiled_for_one_row(forward, signature) if runtime.compiled_serving else forward
