"""Fine-tuning ALBERT on sentence (pair) classification and regression (GLUE, TSV/CSV).

TensorFlow-free imports only here (tasks, file reading, metrics). The Keras pieces live in
their modules: `classifier.AlbertClassifier`, `text_features.AlbertTextFeatures`,
`input_packer.AlbertInputPacker`, `pretrained_encoder.load_pretrained_encoder`,
`datasets.make_dataset`, `serving.export_classifier` and `run.run_classifier`.
"""

from albert_tf.finetune.examples import Examples, infer_labels, read_examples, read_unlabeled
from albert_tf.finetune.metrics import METRICS, compute_metrics
from albert_tf.finetune.tasks import GLUE_TASKS, ColumnLayout, TaskSpec, generic_task, get_task

__all__ = [
    "GLUE_TASKS",
    "METRICS",
    "ColumnLayout",
    "Examples",
    "TaskSpec",
    "compute_metrics",
    "generic_task",
    "get_task",
    "infer_labels",
    "read_examples",
    "read_unlabeled",
]
