"""`ClassificationConfig`: every setting of a sentence (pair) classification or regression run."""

from __future__ import annotations

import dataclasses

from albert_tf.errors import UserError
from albert_tf.finetune.classification.tasks import PROBLEMS, TASK_NAMES
from albert_tf.finetune.finetune_config import FinetuneConfig

# Spellings of GLUE task names that users type.
_TASK_ALIASES = {"sst2": "sst-2", "stsb": "sts-b"}


@dataclasses.dataclass(frozen=True)
class ClassificationConfig(FinetuneConfig):
    """`FinetuneConfig` plus the task and its files (the flags of `run_classifier.py`).

    Example:
    >>> config = ClassificationConfig(task="sst-2", data_dir="glue/SST-2",
    ...                               init_checkpoint="bundle/", do_train=True, do_eval=True)
    >>> config.replace(learning_rate=2e-5).learning_rate
    2e-05
    """

    task: str = "sst-2"
    data_dir: str = ""
    train_file: str = ""  # Override of the task's train file (a path, or a name in data_dir).
    dev_file: str = ""
    test_file: str = ""
    text_a_column: str = ""  # tsv/csv: header name or 0-based position.
    text_b_column: str = ""
    label_column: str = ""
    index_column: str = ""
    has_header: bool = True
    problem: str = "classification"
    labels: tuple[str, ...] = ()  # tsv/csv classification; inferred from train when empty.

    def __post_init__(self) -> None:
        super().__post_init__()
        task = self.task.lower().replace("_", "-")
        if _TASK_ALIASES.get(task, task) not in TASK_NAMES:
            raise UserError(
                f"task={self.task!r} is not supported",
                where="--task",
                fix=f"choose one of {', '.join(TASK_NAMES)}",
            )
        if self.problem not in PROBLEMS:
            raise UserError(
                f"problem={self.problem!r} is not supported",
                where="--problem",
                fix=f"choose one of {', '.join(PROBLEMS)}",
            )
