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
from albert_tf.errors import UserError
from albert_tf.training.precision import AUTO_PRECISION_HELP, PRECISIONS

# The names `create_optimizer` and `create_strategy` build; here, not beside those builders,
# because they import TensorFlow and the config (the commands' flags) is read without it.
OPTIMIZER_NAMES = ("lamb", "adamw")
STRATEGIES = ("one_device", "mirrored", "multi_worker_mirrored", "tpu")


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
        "auto", f"Compute precision; {AUTO_PRECISION_HELP}.", choices=PRECISIONS
    )
    jit_compile: bool = option(False, "Compile the train step with XLA.")
    steps_per_execution: int = option(1, "Train steps per tf.function call.")
    profile_steps: str = option(
        "",
        "Capture a profiler trace of training steps A to B (1-based, e.g. 10,20; one number: "
        "that step) for TensorBoard's Profile tab, under the run's logs/; empty: none.",
    )

    def __post_init__(self) -> None:
        check_choices(self)
        for name in ("train_batch_size", "eval_batch_size", "steps_per_execution"):
            check_range(name, getattr(self, name), low=0, low_open=True)
        check_range("learning_rate", self.learning_rate, low=0, low_open=True)
        self.profile_range()  # Checks profile_steps.

    def profile_range(self) -> tuple[int, int] | None:
        """(first, last) training step of `profile_steps`, or None when it is empty.

        Example:
            >>> TrainingConfig(profile_steps="5,8").profile_range()
            (5, 8)
        """
        if not self.profile_steps:
            return None
        parts = self.profile_steps.split(",")
        try:
            first, last = int(parts[0]), int(parts[-1])
        except ValueError:
            first = last = 0
        if len(parts) > 2 or not 1 <= first <= last:
            raise UserError(
                f"profile_steps={self.profile_steps!r} is not a step range",
                where="--profile_steps",
                fix="pass A,B with 1 <= A <= B (training steps), or one step",
            )
        return first, last

    def replace(self, **changes: Any) -> TrainingConfig:
        return dataclasses.replace(self, **changes)

    def to_json_string(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True) + "\n"
