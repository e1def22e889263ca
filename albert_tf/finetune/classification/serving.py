"""`classifier_endpoints`: a fine-tuned classifier's SavedModel signatures, taking raw text.

Signatures:

* `serving_default(input_word_ids, input_mask, input_type_ids)`: packed ids -> outputs.
* `classify_text(text_a)`: strings [B] -> outputs (tokenized and packed in the graph).
* `classify_text_pair(text_a, text_b)`: for sentence-pair tasks.

Outputs: `logits` float32 [B, C]; classification adds `probabilities` [B, C], `label_ids`
int32 [B] and `labels` string [B]; regression adds `scores` float32 [B].

Loading needs `tensorflow` and `tensorflow_text` (import it first: it registers the
SentencePiece and normalization ops), not albert_tf:

    import tensorflow as tf, tensorflow_text  # noqa: F401
    classifier = tf.saved_model.load(export_dir)
    classifier.signatures["classify_text"](text_a=tf.constant(["a gorgeous film"]))["labels"]

The driver exports them (`export_task_model` with the family's `serving_signatures`); labels
that do not name each of the model's outputs are refused (`check_label_count`).

Illustration (not run):
    labels = ("0", "1")
    export_task_model("/tmp/sst2_export", model,
                      lambda predict: classifier_endpoints(predict, text_features, labels),
                      [built_text_features(text_features, False)], runtime=Runtime.plain())
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

from albert_tf.export.endpoints import Endpoints
from albert_tf.export.task_export import Predict, check_label_count, choice_outputs
from albert_tf.tokenization.text_features import AlbertTextFeatures
from albert_tf.tokenization.trim_padding import cut_to_longest

_IDS_SPEC = tf.TensorSpec([None, None], tf.int32)
_TEXT_SPEC = tf.TensorSpec([None], tf.string)


def classifier_endpoints(
    predict: Predict,
    text_features: AlbertTextFeatures,
    labels: Sequence[str] | None,
    is_pair: bool = False,
) -> Endpoints:
    """Signature name -> (function, input signature) of the module docstring."""
    label_names = tf.constant(list(labels)) if labels is not None else None

    def outputs(features: dict[str, tf.Tensor]) -> dict[str, tf.Tensor]:
        # Short texts need not pay for `max_seq_length`: cut the padding no row needs.
        features = cut_to_longest(features)
        logits = tf.cast(predict(features), tf.float32)
        if label_names is None:
            return {"logits": logits, "scores": logits[:, 0]}
        check_label_count(labels, logits)
        return choice_outputs(logits, label_names, "label")

    def serve(input_word_ids, input_mask, input_type_ids):
        ids = {"input_word_ids": input_word_ids, "input_mask": input_mask}
        return outputs({**ids, "input_type_ids": input_type_ids})

    def classify_text(text_a):
        return outputs(text_features(text_a))

    def classify_text_pair(text_a, text_b):
        return outputs(text_features([text_a, text_b]))

    endpoints = {"serving_default": (serve, [_IDS_SPEC] * 3)}
    if is_pair:
        endpoints["classify_text_pair"] = (classify_text_pair, [_TEXT_SPEC, _TEXT_SPEC])
    else:
        endpoints["classify_text"] = (classify_text, [_TEXT_SPEC])
    return endpoints


def built_text_features(text_features: AlbertTextFeatures, is_pair: bool) -> AlbertTextFeatures:
    """`text_features`, built (export needs built layers) on a tiny input."""
    texts = tf.constant([""])
    text_features([texts, texts] if is_pair else texts)
    return text_features
