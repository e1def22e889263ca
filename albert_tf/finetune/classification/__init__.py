"""Sentence (pair) classification and regression: GLUE tasks and generic TSV/CSV files.

`classification_task.ClassificationTask` is the family on the fine-tuning driver
(`classification_task.run_classifier(config, output_dir, runtime)` does a whole run); the pieces
are `task_specs` (what a task reads and is scored on), `examples` (reading files), `metrics`,
`models.classifier.AlbertClassifier`, `datasets.make_dataset` and `serving.classifier_endpoints`
(its SavedModel signatures).
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "ClassificationConfig": ".classification_config",
    "ClassificationTask": ".classification_task",
    "run_classifier": ".classification_task",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
