"""`export_classifier`: a fine-tuned classifier as a SavedModel that takes raw text.

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

Example:
    >>> export_classifier("/tmp/sst2_export", model, text_features, labels=("0", "1"))
    '/tmp/sst2_export'
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence

import tensorflow as tf

from albert_tf.finetune.classifier import AlbertClassifier
from albert_tf.finetune.text_features import AlbertTextFeatures

_IDS_SPEC = tf.TensorSpec([None, None], tf.int32)
_TEXT_SPEC = tf.TensorSpec([None], tf.string)


class AlbertClassifierServingModule(tf.Module):
    """The classifier and its text featurizer, with the signatures of the module docstring.

    Args:
        model: the fine-tuned `AlbertClassifier`.
        text_features: the `AlbertTextFeatures` it was trained with.
        labels: class names (classification), or None (regression).
    """

    def __init__(
        self,
        model: AlbertClassifier,
        text_features: AlbertTextFeatures,
        labels: Sequence[str] | None,
    ):
        super().__init__(name="albert_classifier_serving")
        if labels is not None and len(labels) != model.num_outputs:
            raise ValueError(f"{len(labels)} labels for a model with {model.num_outputs} outputs.")
        self.model = model
        self.text_features = text_features
        self._labels = tf.constant(list(labels)) if labels is not None else None

    def serve(self, input_word_ids, input_mask, input_type_ids):
        """Packed ids -> outputs."""
        return self._outputs(
            {
                "input_word_ids": input_word_ids,
                "input_mask": input_mask,
                "input_type_ids": input_type_ids,
            }
        )

    def classify_text(self, text_a):
        """Single texts -> outputs."""
        return self._outputs(self.text_features(text_a))

    def classify_text_pair(self, text_a, text_b):
        """Text pairs -> outputs."""
        return self._outputs(self.text_features([text_a, text_b]))

    def signatures(self, is_pair: bool) -> dict:
        """Signature name -> concrete function; the text signature matching the task.

        Only these functions are traced and saved: tracing (with autograph off, the code is
        plain TensorFlow) is most of the export time.
        """
        text_name = "classify_text_pair" if is_pair else "classify_text"
        text_specs = [_TEXT_SPEC, _TEXT_SPEC] if is_pair else [_TEXT_SPEC]
        functions = {
            "serving_default": tf.function(
                self.serve, input_signature=[_IDS_SPEC] * 3, autograph=False
            ),
            text_name: tf.function(
                getattr(self, text_name), input_signature=text_specs, autograph=False
            ),
        }
        return {name: function.get_concrete_function() for name, function in functions.items()}

    def _outputs(self, features: dict[str, tf.Tensor]) -> dict[str, tf.Tensor]:
        logits = tf.cast(self.model(features, training=False), tf.float32)
        if self._labels is None:
            return {"logits": logits, "scores": logits[:, 0]}
        label_ids = tf.argmax(logits, axis=-1, output_type=tf.int32)
        return {
            "logits": logits,
            "probabilities": tf.nn.softmax(logits, axis=-1),
            "label_ids": label_ids,
            "labels": tf.gather(self._labels, label_ids),
        }


def export_classifier(
    export_dir: str,
    model: AlbertClassifier,
    text_features: AlbertTextFeatures,
    labels: Sequence[str] | None,
    is_pair: bool = False,
    overwrite: bool = False,
) -> str:
    """Saves the SavedModel (written to a temporary directory, renamed when complete).

    Args:
        export_dir: directory to create.
        model: the fine-tuned classifier.
        text_features: its featurizer (tokenizer + packing at the training `max_seq_length`).
        labels: class names in id order, or None for a regression.
        is_pair: export `classify_text_pair` (pair tasks) instead of `classify_text`.
        overwrite: replace an existing `export_dir` once the new one is complete.

    Returns:
        `export_dir`.
    """
    export_dir = os.path.abspath(os.fspath(export_dir))
    if os.path.exists(export_dir) and not overwrite:
        raise FileExistsError(f"{export_dir} already exists; pass overwrite=True to replace it.")
    module = AlbertClassifierServingModule(model, text_features, labels)
    parent = os.path.dirname(export_dir)
    os.makedirs(parent, exist_ok=True)
    temp_dir = tempfile.mkdtemp(prefix=f".tmp-{os.path.basename(export_dir)}-", dir=parent)
    try:
        tf.saved_model.save(module, temp_dir, signatures=module.signatures(is_pair))
        if os.path.exists(export_dir):
            shutil.rmtree(export_dir)
        os.replace(temp_dir, export_dir)
    except BaseException:
        shutil.rmtree(temp_dir, ignore_errors=True)
        raise
    return export_dir
