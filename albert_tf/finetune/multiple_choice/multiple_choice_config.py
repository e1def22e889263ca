"""`MultipleChoiceConfig`: every setting of a multiple-choice (RACE or generic) run."""

from __future__ import annotations

import dataclasses

from albert_tf.errors import UserError
from albert_tf.finetune.finetune_config import FinetuneConfig

TASKS = ("race", "generic")


@dataclasses.dataclass(frozen=True)
class MultipleChoiceConfig(FinetuneConfig):
    """`FinetuneConfig` plus the data (the flags of `run_multiple_choice.py`).

    Defaults follow the original `run_race.py`: max_seq_length 512, max_qa_length 128,
    batch 32, learning rate 1e-5.

    Example:
    >>> config = MultipleChoiceConfig(task="race", train_file="RACE/train",
    ...                               dev_file="RACE/dev", init_checkpoint="bundle/")
    >>> config.max_seq_length, config.max_qa_length
    (512, 128)
    """

    max_seq_length: int = 512
    learning_rate: float = 1e-5
    eval_batch_size: int = 8
    task: str = "race"
    train_file: str = ""  # race: folder (searched recursively), file or glob; generic: a file.
    dev_file: str = ""
    test_file: str = ""
    holdout_fraction: float = 0.0  # > 0: dev = this share of train_file's articles (by hash).
    max_qa_length: int = 128
    blank_per_underscore: bool = False  # The original's "_" filling (once per underscore).
    # -- generic files: field names --
    context_column: str = "context"
    question_column: str = "question"
    options_column: str = "options"
    option_columns: tuple[str, ...] = ()  # Default: answer0.., option0.., ending0.. columns.
    label_column: str = "label"
    id_column: str = "id"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.task not in TASKS:
            raise UserError(
                f"task={self.task!r} is not supported",
                where="--task",
                fix=f"choose one of {', '.join(TASKS)}",
            )
        if not 1 <= self.max_qa_length <= self.max_seq_length - 3:
            raise UserError(
                f"max_qa_length {self.max_qa_length} must be in [1, max_seq_length - 3 = "
                f"{self.max_seq_length - 3}]",
                where="--max_qa_length",
            )
        if not 0.0 <= self.holdout_fraction < 1.0:
            raise UserError(
                f"holdout_fraction must be in [0, 1), got {self.holdout_fraction}",
                where="--holdout_fraction",
            )
        if self.holdout_fraction and self.dev_file:
            raise UserError(
                "--holdout_fraction takes the dev set from --train_file",
                where="--dev_file",
                fix="pass one of --dev_file and --holdout_fraction",
            )
