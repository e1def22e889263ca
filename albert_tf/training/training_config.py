"""`TrainingConfig`: the settings pretraining and fine-tuning share.

The optimizer's settings, the batch sizes and seed, and where and how training runs
(strategy, precision, XLA). `PretrainConfig` and `FinetuneConfig` extend it with their own
settings and set their own defaults (LAMB at 0.00176 for pretraining, AdamW at 3e-5 for
fine-tuning); help texts and choices are declared once here.

Example:
    >>> TrainingConfig(precision="float32").replace(seed=1).seed
    1
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from albert_tf.config_fields import check_choices, check_range, option
from albert_tf.training.optimizers import OPTIMIZER_NAMES
from albert_tf.training.precision import PRECISIONS
from albert_tf.training.strategy import STRATEGIES


@dataclasses.dataclass(frozen=True)
class TrainingConfig:
    """Optimization and execution settings; batch sizes are global (over all replicas)."""

    # -- optimization --
    optimizer: str = option("adamw", "The optimizer.", choices=OPTIMIZER_NAMES)
    learning_rate: float = option(3e-5, "Peak learning rate.")
    weight_decay: float = option(0.01, "Decoupled weight decay (not on LayerNorm and bias).")
    clip_norm: float = option(1.0, "Global gradient norm clip (0: none).")
    train_batch_size: int = option(32, "Global examples per optimizer update.")
    eval_batch_size: int = option(64, "Global examples per evaluation or prediction step.")
    seed: int = option(12345, "Random seed (initial weights, data order, dropout).")
    # -- execution --
    strategy: str = option("one_device", "Distribution strategy.", choices=STRATEGIES)
    tpu: str = option("", "TPU name or grpc:// address (--strategy=tpu).")
    precision: str = option(
        "auto",
        "Compute precision (auto: mixed_bfloat16 where it measures faster than float32: TPUs, "
        "Ampere+ GPUs, CPUs whose bf16 matmuls win; else float32).",
        choices=PRECISIONS,
    )
    jit_compile: bool = option(False, "Compile the train step with XLA.")
    steps_per_execution: int = option(1, "Train steps per tf.function call.")

    def __post_init__(self) -> None:
        check_choices(self)
        for name in ("train_batch_size", "eval_batch_size", "steps_per_execution"):
            check_range(name, getattr(self, name), low=0, low_open=True)
        check_range("learning_rate", self.learning_rate, low=0, low_open=True)

    def replace(self, **changes: Any) -> TrainingConfig:
        return dataclasses.replace(self, **changes)

    def to_json_string(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True) + "\n"
