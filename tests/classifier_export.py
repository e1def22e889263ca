"""`export_classifier_model`: a classifier's SavedModel from a model in memory, written the way
the fine-tuning driver writes a classification run's (`export_task_model` with the family's
signatures), for tests that hold a model rather than a finished run (those export it with
`export_finished_run`)."""

from __future__ import annotations

from collections.abc import Sequence

from albert_tf.export.task_export import export_task_model
from albert_tf.finetune.classification.serving import built_text_features, classifier_endpoints
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.runtime import Runtime
from albert_tf.tokenization.text_features import AlbertTextFeatures


def export_classifier_model(
    export_dir: str,
    model: AlbertClassifier,
    features: AlbertTextFeatures,
    labels: Sequence[str] | None,
    is_pair: bool = False,
) -> str:
    """`model` behind the classification signatures (`Runtime.plain()`); returns `export_dir`."""
    return export_task_model(
        export_dir,
        model,
        lambda predict: classifier_endpoints(predict, features, labels, is_pair),
        [built_text_features(features, is_pair)],
        runtime=Runtime.plain(),
    )
