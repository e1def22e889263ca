"""`FinetuneConfig`: every setting of a fine-tuning run (the flags of run_classifier.py)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from albert_tf.finetune.tasks import PROBLEMS, TASK_NAMES
from albert_tf.training.optimizers import OPTIMIZER_NAMES
from albert_tf.training.precision import PRECISIONS
from albert_tf.training.strategy import STRATEGIES


@dataclasses.dataclass(frozen=True)
class FinetuneConfig:
    """Settings of `run_classifier`; defaults are the original ALBERT GLUE recipe's shape.

    AdamW, 10% linear warmup then linear decay to 0, weight decay 0.01 (not on LayerNorm and
    bias), gradients clipped to norm 1.0, dropout 0.1 on the pooled output. A pretrained
    ALBERT wants a learning rate around 1e-5..5e-5: much higher and training can collapse to
    the majority class (50% on balanced tasks).

    Example:
    >>> config = FinetuneConfig(task="sst-2", data_dir="glue/SST-2",
    ...                         init_checkpoint="bundle/", do_train=True, do_eval=True)
    >>> config.replace(learning_rate=2e-5).learning_rate
    2e-05
    """

    # -- data --
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
    max_train_examples: int = 0  # Use only the first N training examples (0: all).
    # -- model --
    init_checkpoint: str = ""  # Bundle dir, encoder.keras, pretraining workdir or ckpt prefix.
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

    def __post_init__(self) -> None:
        choices = {
            "task": TASK_NAMES,
            "problem": PROBLEMS,
            "optimizer": OPTIMIZER_NAMES,
            "strategy": STRATEGIES,
            "precision": PRECISIONS,
        }
        for name, allowed in choices.items():
            value = getattr(self, name)
            if name == "task":
                value = value.lower().replace("_", "-")
                value = {"sst2": "sst-2", "stsb": "sts-b"}.get(value, value)
            if value not in allowed:
                raise ValueError(f"{name}={getattr(self, name)!r}; choose one of {allowed}.")
        for name in (
            "max_seq_length",
            "train_batch_size",
            "eval_batch_size",
            "steps_per_execution",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}.")
        if self.max_seq_length < 3:
            raise ValueError(f"max_seq_length must be >= 3, got {self.max_seq_length}.")
        if self.learning_rate <= 0 or self.num_train_epochs <= 0:
            raise ValueError("learning_rate and num_train_epochs must be positive.")
        if not 0.0 <= self.warmup_proportion < 1.0:
            raise ValueError(f"warmup_proportion must be in [0, 1), got {self.warmup_proportion}.")
        if not 0.0 <= self.dropout_rate < 1.0:
            raise ValueError(f"dropout_rate must be in [0, 1), got {self.dropout_rate}.")
        if not (self.do_train or self.do_eval or self.do_predict or self.export_saved_model):
            raise ValueError("Nothing to do: set do_train, do_eval, do_predict or export.")

    def replace(self, **changes: Any) -> FinetuneConfig:
        return dataclasses.replace(self, **changes)

    def to_json_string(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True) + "\n"
