"""Multiple choice: RACE's layout and generic JSONL/CSV files.

`multiple_choice_task.MultipleChoiceTask` is the family on the fine-tuning driver
(`multiple_choice_task.run_multiple_choice(config, output_dir, runtime)` does a whole run); the
pieces are `examples` (reading and checking files), `choice_features.ChoiceFeatures` (the
original RACE encoding in graph, for training and serving), `datasets`, `metrics`,
`models.multiple_choice.AlbertMultipleChoice` and `serving.multiple_choice_endpoints`.
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "MultipleChoiceConfig": ".multiple_choice_config",
    "MultipleChoiceTask": ".multiple_choice_task",
    "run_multiple_choice": ".multiple_choice_task",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
