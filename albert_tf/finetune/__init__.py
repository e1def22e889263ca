"""Fine-tuning ALBERT: one task interface, one driver, one folder per task family.

`run_finetuning(config, output_dir, runtime)` (`driver`) runs any family: a `FinetuneTask` subclass
(`task_family`), listed by name with its config class in the one table of families
(`families.FAMILIES`, read by the commands, export, conversion and distillation), says what
is the family's own (inputs, head, metrics, predictions, serving signatures, its typed
`task.json`); the driver does the rest (lock, checks before writes, build-or-load,
seed/strategy/precision, train/eval/predict/export). Shared pieces:
`finetune_config.FinetuneConfig` (the common settings), `flags` (the commands' flags,
generated from the config), `pretrained_encoder` (what a run starts from), `fitting` (the
optimizer recipe and `fit`), `datasets` (batching, length buckets), `prediction` (outputs as
the export computes them), `scalar_logger`, `seeds` (`run_seeds`: one run per seed and
their mean and standard deviation), `distillation` (a smaller student of a finished run).
Families: `classification` (GLUE and any TSV/CSV, sentence or pair, classification or
regression), `span_qa` (SQuAD 1.1/2.0), `multiple_choice` (RACE and generic JSONL/CSV) and
`tagging` (CoNLL-style / JSONL files, IOB1/IOB2/IOBES, conlleval). `docs/adding_a_task_family.md`
shows how to add one.
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "FinetuneConfig": ".finetune_config",
    "FinetuneTask": ".task_family",
    "TaskInfo": ".task_family",
    "family_names": ".families",
    "get_family": ".families",
    "load_finetuning_encoder": ".pretrained_encoder",
    "run_finetuning": ".driver",
    "run_seeds": ".seeds",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
