"""Sentence (pair) classification and regression: GLUE tasks and generic TSV/CSV files.

`task.ClassificationTask` is the family on the fine-tuning driver (`task.run_classifier(config,
output_dir)` does a whole run); the pieces are `tasks` (what a task reads and is scored on),
`examples` (reading files), `metrics`, `classifier.AlbertClassifier`, `datasets.make_dataset`
and `serving.export_classifier`.
"""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "ClassificationConfig",
    "ClassificationTask",
    "export_classifier",
    "run_classifier",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
