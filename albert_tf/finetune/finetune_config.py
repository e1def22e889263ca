"""`FinetuneConfig`: the settings every fine-tuning task family shares.

Model, tokenizer, optimization, what to do, and execution. Each task family extends it with
its data settings (e.g. `ClassificationConfig` in `albert_tf.finetune.classification`), so the
shared flags (`albert_tf.finetune.flags`) and the shared run steps
(`albert_tf.finetune.training`) read the same fields everywhere.

Example:
    >>> config = FinetuneConfig(init_checkpoint="bundle/", learning_rate=2e-5)
    >>> config.replace(num_train_epochs=2.0).num_train_epochs
    2.0
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from albert_tf.errors import UserError
from albert_tf.training.optimizers import OPTIMIZER_NAMES
from albert_tf.training.precision import PRECISIONS
from albert_tf.training.strategy import STRATEGIES


@dataclasses.dataclass(frozen=True)
class FinetuneConfig:
    """Settings shared by every task family; defaults are the original ALBERT GLUE recipe's shape.

    AdamW, 10% linear warmup then linear decay to 0, weight decay 0.01 (not on LayerNorm and
    bias), gradients clipped to norm 1.0, dropout 0.1 before the task head. A pretrained
    ALBERT wants a learning rate around 1e-5..5e-5: much higher and training can collapse.
    Task families override defaults where the original recipe differs (e.g. SQuAD's lengths).
    """

    # -- model --
    init_checkpoint: str = ""  # Bundle dir, encoder.keras, pretraining workdir, ckpt, HF or TF1.
    albert_config_file: str = ""  # For a random encoder or a checkpoint without config.
    spm_model_file: str = ""  # Taken from the bundle when empty.
    do_lower_case: bool = True
    max_seq_length: int = 128
    dropout_rate: float = 0.1
    # -- optimization --
    optimizer: str = "adamw"
    learning_rate: float = 3e-5
    num_train_epochs: float = 3.0
    warmup_proportion: float = 0.1
    weight_decay: float = 0.01
    clip_norm: float = 1.0
    train_batch_size: int = 32
    eval_batch_size: int = 64
    seed: int = 12345
    max_train_examples: int = 0  # Use only the first N training examples (0: all).
    # -- what to do --
    do_train: bool = True
    do_eval: bool = True
    do_predict: bool = False
    export_saved_model: bool = False
    # -- execution --
    strategy: str = "one_device"
    tpu: str = ""
    precision: str = "auto"
    jit_compile: bool = False
    steps_per_execution: int = 1
    # Training batches group examples of similar length and are padded only to the next
    # multiple of this many tokens (0: every batch padded to max_seq_length).
    bucket_width: int = 0

    def __post_init__(self) -> None:
        choices = {"optimizer": OPTIMIZER_NAMES, "strategy": STRATEGIES, "precision": PRECISIONS}
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise UserError(
                    f"{name}={getattr(self, name)!r} is not supported",
                    where=f"--{name}",
                    fix=f"choose one of {', '.join(allowed)}",
                )
        positive = ("max_seq_length", "train_batch_size", "eval_batch_size", "steps_per_execution")
        for name in positive:
            if getattr(self, name) <= 0:
                raise UserError(
                    f"{name} must be positive, got {getattr(self, name)}", where=f"--{name}"
                )
        if self.max_seq_length < 3:
            raise UserError(
                f"max_seq_length must be >= 3 ([CLS] and [SEP]s), got {self.max_seq_length}",
                where="--max_seq_length",
            )
        for name in ("learning_rate", "num_train_epochs"):
            if getattr(self, name) <= 0:
                raise UserError(
                    f"{name} must be positive, got {getattr(self, name)}", where=f"--{name}"
                )
        for name in ("warmup_proportion", "dropout_rate"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise UserError(
                    f"{name} must be in [0, 1), got {getattr(self, name)}", where=f"--{name}"
                )
        if self.bucket_width < 0:
            raise UserError(
                f"bucket_width must be >= 0, got {self.bucket_width}", where="--bucket_width"
            )
        if self.max_train_examples < 0:
            raise UserError(
                f"max_train_examples must be >= 0, got {self.max_train_examples}",
                where="--max_train_examples",
            )
        if not (self.do_train or self.do_eval or self.do_predict or self.export_saved_model):
            raise UserError(
                "nothing to do",
                fix="pass --do_train, --do_eval, --do_predict or --export_saved_model",
            )

    def replace(self, **changes: Any) -> FinetuneConfig:
        return dataclasses.replace(self, **changes)

    def to_json_string(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True) + "\n"
