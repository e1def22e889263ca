"""`PretrainConfig`: every setting of a pretraining run (the flags of run_pretraining.py)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from albert_tf.data.masking import MaskingOptions
from albert_tf.errors import UserError
from albert_tf.training.optimizers import OPTIMIZER_NAMES
from albert_tf.training.precision import PRECISIONS
from albert_tf.training.strategy import STRATEGIES


@dataclasses.dataclass(frozen=True)
class PretrainConfig:
    """Settings of `train_and_evaluate`; names follow the original flags.

    Batch sizes are *global*: `train_batch_size` examples per optimizer update
    over all replicas and workers (the paper's batch size, the one the learning
    rate goes with). `gradient_accumulation_steps` = k splits each replica's
    share into k micro-batches to save memory without changing the math.

    Example:
    >>> config = PretrainConfig(input_file="out/train-*.tfrecord",
    ...                         albert_config_file="albert_config.json",
    ...                         train_batch_size=64, num_train_steps=1000)
    >>> config.replace(precision="mixed_bfloat16").precision
    'mixed_bfloat16'
    """

    input_file: str = ""
    albert_config_file: str = ""
    eval_file: str = ""
    init_checkpoint: str = ""
    do_train: bool = True
    do_eval: bool = False
    train_batch_size: int = 4096
    eval_batch_size: int = 64
    max_seq_length: int = 512
    max_predictions_per_seq: int = 20
    optimizer: str = "lamb"
    learning_rate: float = 0.00176
    num_train_steps: int = 125_000
    num_warmup_steps: int = 3125
    weight_decay: float = 0.01
    clip_norm: float = 1.0
    save_checkpoints_steps: int = 5000
    keep_checkpoint_max: int = 5
    max_eval_steps: int = 100
    log_every_steps: int = 100
    strategy: str = "one_device"
    tpu: str = ""
    # "auto": the faster of bf16 and float32 for the device (precision.AUTO_PRECISION_HELP).
    precision: str = "auto"
    jit_compile: bool = False
    steps_per_execution: int = 1
    gradient_accumulation_steps: int = 1
    seed: int = 12345
    shuffle_buffer_size: int = 10_000
    # Re-draw the whole-word n-gram masks every time a training record is read,
    # masking `masked_lm_prob` of the pieces in n-grams of up to `ngram` words (the
    # data builder's defaults); eval keeps the records' masks.
    dynamic_masking: bool = False
    masked_lm_prob: float = 0.15
    ngram: int = 3
    # Weight of the sentence-order (or NSP) loss in the total; 0.0 trains MLM only
    # (the paper's Table 5 "None" row); the head is then left untrained.
    sentence_order_loss_weight: float = 1.0

    def __post_init__(self) -> None:
        choices = {
            "optimizer": OPTIMIZER_NAMES,
            "strategy": STRATEGIES,
            "precision": PRECISIONS,
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise UserError(f"{name}={getattr(self, name)!r}; choose one of {allowed}.")
        for name in (
            "train_batch_size",
            "eval_batch_size",
            "max_seq_length",
            "max_predictions_per_seq",
            "num_train_steps",
            "save_checkpoints_steps",
            "keep_checkpoint_max",
            "max_eval_steps",
            "log_every_steps",
            "steps_per_execution",
            "gradient_accumulation_steps",
        ):
            if getattr(self, name) < 1:
                raise UserError(f"{name} must be >= 1, got {getattr(self, name)}.")
        if self.num_warmup_steps < 0:
            raise UserError(f"num_warmup_steps must be >= 0, got {self.num_warmup_steps}.")
        if not 0.0 < self.masked_lm_prob <= 1.0:
            raise UserError(f"masked_lm_prob must be in (0, 1], got {self.masked_lm_prob}.")
        self.masking_options()  # checks ngram
        if self.sentence_order_loss_weight < 0:
            raise ValueError(
                f"sentence_order_loss_weight must be >= 0, got {self.sentence_order_loss_weight}."
            )
        if not self.albert_config_file:
            raise UserError("albert_config_file is required (the model's albert_config.json).")
        if self.do_train and not self.input_file:
            raise UserError("do_train needs input_file (TFRecord glob patterns).")
        if self.do_eval and not self.eval_file:
            raise UserError("do_eval needs eval_file (TFRecord glob patterns).")
        if self.train_batch_size % self.gradient_accumulation_steps:
            raise UserError(
                f"train_batch_size ({self.train_batch_size}) must be divisible by "
                f"gradient_accumulation_steps ({self.gradient_accumulation_steps})."
            )

    def masking_options(self) -> MaskingOptions:
        """The options of `dynamic_masking`'s re-drawn masks."""
        return MaskingOptions(
            max_predictions_per_seq=self.max_predictions_per_seq,
            masked_lm_prob=self.masked_lm_prob,
            ngram=self.ngram,
        )

    def replace(self, **changes: Any) -> PretrainConfig:
        return dataclasses.replace(self, **changes)

    def to_json_string(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True) + "\n"
