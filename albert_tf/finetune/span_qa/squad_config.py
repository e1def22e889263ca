"""`SquadConfig`: every setting of a SQuAD (extractive QA) fine-tuning run."""

from __future__ import annotations

import dataclasses

from albert_tf.errors import UserError
from albert_tf.finetune.finetune_config import FinetuneConfig


@dataclasses.dataclass(frozen=True)
class SquadConfig(FinetuneConfig):
    """`FinetuneConfig` with the original `run_squad_v1/v2.py` defaults, plus the files.

    Defaults: max_seq_length 384, doc_stride 128, max_query_length 64, n_best_size 20,
    max_answer_length 30, train batch 48, learning rate 5e-5, 2 epochs, 10% warmup.
    `null_score_diff_threshold` None means: the one chosen on the dev file (best F1) when it
    has gold answers, else the one stored by the run, else 0.0.

    Example:
        >>> config = SquadConfig(train_file="train.json", version_2_with_negative=True)
        >>> config.max_seq_length, config.doc_stride, config.learning_rate
        (384, 128, 5e-05)
    """

    max_seq_length: int = 384
    learning_rate: float = 5e-5
    num_train_epochs: float = 2.0
    train_batch_size: int = 48
    do_eval: bool = False
    train_file: str = ""
    predict_file: str = ""  # One file or several, comma-separated; the first v2 one tunes.
    version_2_with_negative: bool = False
    doc_stride: int = 128
    max_query_length: int = 64
    n_best_size: int = 20
    max_answer_length: int = 30
    null_score_diff_threshold: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("doc_stride", "max_query_length", "n_best_size", "max_answer_length"):
            if getattr(self, name) <= 0:
                raise UserError(
                    f"{name} must be positive, got {getattr(self, name)}", where=f"--{name}"
                )
        if self.max_query_length + 4 > self.max_seq_length:
            raise UserError(
                f"max_query_length {self.max_query_length} leaves no room for the context in "
                f"max_seq_length {self.max_seq_length}",
                where="--max_query_length",
                fix=f"use at most {self.max_seq_length - 4}, or a longer --max_seq_length",
            )

    def check_files(self) -> None:
        """The files the asked steps need are named (checked when a run starts)."""
        if self.do_train and not self.train_file:
            raise UserError("--do_train needs a training file", where="--train_file")
        if (self.do_eval or self.do_predict) and not self.predict_files:
            raise UserError("--do_predict needs a file to predict", where="--predict_file")

    @property
    def predict_files(self) -> list[str]:
        return [path for path in self.predict_file.split(",") if path]
