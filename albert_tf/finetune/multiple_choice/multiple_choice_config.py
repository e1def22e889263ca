"""`MultipleChoiceConfig`: every setting of a multiple-choice (RACE or generic) run."""

from __future__ import annotations

import dataclasses

from albert_tf.config_fields import check_range, option
from albert_tf.errors import UserError
from albert_tf.finetune.finetune_config import FinetuneConfig

TASKS = ("race", "generic")


@dataclasses.dataclass(frozen=True)
class MultipleChoiceConfig(FinetuneConfig):
    """`FinetuneConfig` plus the data (the flags of `albert-tf choice`).

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
    task: str = option("race", "race (RACE folders/files) or generic.", choices=TASKS)
    train_file: str = option(
        "", "race: folder (searched recursively), file or glob; generic: a file."
    )
    dev_file: str = option("", "Dev data, as --train_file.")
    test_file: str = option("", "Data to predict (answers not needed), as --train_file.")
    holdout_fraction: float = option(
        0.0, "Evaluate on this share of --train_file's articles (by hash); not with --dev_file."
    )
    max_qa_length: int = option(128, "Question+option pieces kept (the last ones).")
    blank_per_underscore: bool = option(
        False, "Fill a '_' blank as the original: once per underscore."
    )
    # -- generic files: field names --
    context_column: str = option("context", "generic: context field.")
    question_column: str = option("question", "generic: question field.")
    options_column: str = option("options", "generic: options list field.")
    option_columns: tuple[str, ...] = option(
        (), "generic: one field per option (default: answer0.., option0.., ending0.. columns)."
    )
    label_column: str = option("label", "generic: answer index or letter.")
    id_column: str = option("id", "generic: id written with predictions.")

    def __post_init__(self) -> None:
        super().__post_init__()
        check_range(
            "max_qa_length",
            self.max_qa_length,
            low=1,
            high=self.max_seq_length - 3,
            high_open=False,
            why="at most max_seq_length - 3",
        )
        check_range("holdout_fraction", self.holdout_fraction, low=0.0, high=1.0)
        if self.holdout_fraction and self.dev_file:
            raise UserError(
                "--holdout_fraction takes the dev set from --train_file",
                where="--dev_file",
                fix="pass one of --dev_file and --holdout_fraction",
            )
