"""`SpanQaConfig`: every setting of a span QA (extractive QA on SQuAD files) fine-tuning run."""

from __future__ import annotations

import dataclasses

from albert_tf.config_fields import check_range, option
from albert_tf.errors import UserError
from albert_tf.finetune.finetune_config import FinetuneConfig


@dataclasses.dataclass(frozen=True)
class SpanQaConfig(FinetuneConfig):
    """`FinetuneConfig` with the original `run_squad_v1/v2.py` defaults, plus the files.

    Defaults: max_seq_length 384, doc_stride 128, max_query_length 64, n_best_size 20,
    max_answer_length 30, train batch 48, learning rate 5e-5, 2 epochs, 10% warmup.
    `null_score_diff_threshold` None means: the one chosen on the dev file (best F1) when it
    has gold answers, else the one stored by the run, else 0.0. Evaluating and predicting are
    one step here: every `predict_file` is predicted, and scored when it has answers.

    Example:
        >>> config = SpanQaConfig(train_file="train.json", version_2_with_negative=True)
        >>> config.max_seq_length, config.doc_stride, config.learning_rate
        (384, 128, 5e-05)
    """

    max_seq_length: int = 384
    learning_rate: float = 5e-5
    num_train_epochs: float = 2.0
    train_batch_size: int = 48
    do_eval: bool = False
    train_file: str = option("", "SQuAD JSON to train on.")
    predict_file: str = option(
        "", "SQuAD JSON file(s) to predict and score, comma-separated; the first v2 one tunes."
    )
    version_2_with_negative: bool = option(False, "SQuAD v2.0: questions may have no answer.")
    doc_stride: int = option(128, "Pieces between context windows.")
    max_query_length: int = option(64, "Question pieces kept.")
    n_best_size: int = option(20, "Answers in nbest_predictions.json.")
    max_answer_length: int = option(30, "Longest answer (pieces).")
    null_score_diff_threshold: float | None = option(
        None,
        "v2: answer '' when null score - best span score exceeds this (default: chosen on dev).",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("doc_stride", "max_query_length", "n_best_size", "max_answer_length"):
            check_range(name, getattr(self, name), low=0, low_open=True)
        if self.max_query_length + 4 > self.max_seq_length:
            raise UserError(
                f"max_query_length {self.max_query_length} leaves no room for the context in "
                f"max_seq_length {self.max_seq_length}",
                where="--max_query_length",
                fix=f"use at most {self.max_seq_length - 4}, or a longer --max_seq_length",
            )

    @property
    def predict_files(self) -> list[str]:
        """The `predict_file` paths (under `data_dir` when given without a directory)."""
        return [self.data_path(path) for path in self.predict_file.split(",") if path]
