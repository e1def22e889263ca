"""`ClassificationConfig`: every setting of a sentence (pair) classification or regression run."""

from __future__ import annotations

import dataclasses

from albert_tf.config_fields import option
from albert_tf.finetune.classification.task_specs import PROBLEMS, TASK_NAMES, canonical_task_name
from albert_tf.finetune.finetune_config import FinetuneConfig


@dataclasses.dataclass(frozen=True)
class ClassificationConfig(FinetuneConfig):
    """`FinetuneConfig` plus the task and its files (the flags of `albert-tf classify`).

    `task` may be spelled as users type it ("SST2", "sts_b"); it is kept in its canonical form.

    Example:
    >>> config = ClassificationConfig(task="sst2", data_dir="glue/SST-2",
    ...                               init_checkpoint="bundle/", do_train=True, do_eval=True)
    >>> config.task, config.replace(learning_rate=2e-5).learning_rate
    ('sst-2', 2e-05)
    """

    task: str = option("sst-2", "GLUE task, or tsv/csv (generic files).", choices=TASK_NAMES)
    train_file: str = option("", "Train file name (or path); default: the task's.")
    dev_file: str = option("", "Dev file name (or path); default: the task's.")
    test_file: str = option("", "File to predict (or path); default: the task's test.")
    text_a_column: str = option("", "tsv/csv: header name or 0-based position of text A.")
    text_b_column: str = option("", "tsv/csv: column of text B (pair tasks).")
    label_column: str = option("", "tsv/csv: column of the label.")
    index_column: str = option("", "tsv/csv: id column written with predictions.")
    has_header: bool = option(True, "tsv/csv: the first line names the columns.")
    problem: str = option("classification", "tsv/csv: what the label is.", choices=PROBLEMS)
    labels: tuple[str, ...] = option(
        (), "tsv/csv classification: class names (default: read from the training file)."
    )

    def __post_init__(self) -> None:
        # Frozen: the canonical spelling is set once, before the choices are checked.
        object.__setattr__(self, "task", canonical_task_name(self.task))
        super().__post_init__()
