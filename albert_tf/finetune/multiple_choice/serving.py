"""`multiple_choice_endpoints`: a fine-tuned multiple-choice model's raw-text SavedModel signatures.

Signatures:

* `choose(context, question, options)`: strings `[B]`, `[B]`, `[B, N]` -> `probabilities`
  float32 `[B, N]`, `logits` `[B, N]`, `answer_ids` int32 `[B]` and `answers` (letters A, B, ...)
  `[B]`. An empty option is padding: probability 0. Encoded in the graph as in training.
* `serving_default(input_word_ids, input_mask, input_type_ids)`: packed ids `[B, N, L]`.

Loading needs only `tensorflow` and `tensorflow_text` (import it first: it registers the
SentencePiece and normalization ops):

    import tensorflow as tf, tensorflow_text  # noqa: F401
    chooser = tf.saved_model.load(export_dir)
    chooser.signatures["choose"](context=tf.constant(["Tom has a cat."]),
                                 question=tf.constant(["Tom has a _."]),
                                 options=tf.constant([["cat", "dog", ""]]))["answers"]

The driver exports them (`export_task_model` with the family's `serving_signatures`).

Illustration (not run):
    export_task_model("/tmp/race_export", model,
                      lambda predict: multiple_choice_endpoints(predict, features),
                      [built_choice_features(features)], runtime=Runtime.plain())
"""

from __future__ import annotations

import tensorflow as tf

from albert_tf.export.endpoints import Endpoints
from albert_tf.export.task_export import Predict, choice_outputs
from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures

# A string per option (made in the traced graph: no TensorFlow op runs at import).
_LETTERS = [chr(ord("A") + i) for i in range(26)]
_IDS_SPEC = tf.TensorSpec([None, None, None], tf.int32)
_TEXT_SPEC = tf.TensorSpec([None], tf.string)
_OPTIONS_SPEC = tf.TensorSpec([None, None], tf.string)


def multiple_choice_endpoints(predict: Predict, features: ChoiceFeatures) -> Endpoints:
    """Signature name -> (function, input signature) of the module docstring."""

    def outputs(packed: dict[str, tf.Tensor]) -> dict[str, tf.Tensor]:
        return choice_outputs(predict(packed), tf.constant(_LETTERS), "answer")

    def serve(input_word_ids, input_mask, input_type_ids):
        return outputs(
            {
                "input_word_ids": input_word_ids,
                "input_mask": input_mask,
                "input_type_ids": input_type_ids,
            }
        )

    def choose(context, question, options):
        return outputs(features([context, question, options]))

    return {
        "choose": (choose, [_TEXT_SPEC, _TEXT_SPEC, _OPTIONS_SPEC]),
        "serving_default": (serve, [_IDS_SPEC] * 3),
    }


def built_choice_features(features: ChoiceFeatures) -> ChoiceFeatures:
    """`features`, built (export needs built layers) on a tiny input."""
    texts = tf.constant([""])
    features([texts, texts, tf.constant([["a"]])])
    return features
