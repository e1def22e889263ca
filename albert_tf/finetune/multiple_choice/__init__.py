"""Multiple choice: RACE's layout and generic JSONL/CSV files.

`task.MultipleChoiceTask` is the family on the fine-tuning driver
(`task.run_multiple_choice(config, output_dir)` does a whole run); the pieces are `examples`
(reading and checking files), `encoding` (the original RACE encoding in Python),
`choice_features.ChoiceFeatures` (the same in graph, for training and serving), `datasets`,
`metrics`, `models.multiple_choice.AlbertMultipleChoice` and `serving.export_multiple_choice`.
"""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "MultipleChoiceConfig",
    "MultipleChoiceTask",
    "export_multiple_choice",
    "run_multiple_choice",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
