"""The learning-rate schedule of the original ALBERT `optimization.py`.

Linear warmup, then `tf.train.polynomial_decay(cycle=False)` evaluated at the
raw global step: the decay is *not* offset by the warmup, so at the end of the
warmup the rate is already slightly below its peak, exactly as in the original.
"""

from __future__ import annotations

from typing import Any

import keras
from keras import ops

from albert_tf.layer_config import arguments_config, store_arguments


@keras.saving.register_keras_serializable(package="albert_tf")
class WarmupPolynomialDecay(keras.optimizers.schedules.LearningRateSchedule):
    """Linear warmup followed by polynomial decay, as in ALBERT/BERT.

    With `s = step - start_warmup_step`:

    * `s < warmup_steps`: `initial_learning_rate * s / warmup_steps` (0 at s = 0);
    * otherwise: `(initial_learning_rate - end_learning_rate)
      * (1 - min(step, decay_steps) / decay_steps) ** power + end_learning_rate`.

    Args:
        initial_learning_rate: Peak learning rate.
        decay_steps: Step at which the decay reaches `end_learning_rate`
            (the original `num_train_steps`).
        warmup_steps: Length of the linear warmup; 0 disables it.
        power: Exponent of the polynomial decay.
        end_learning_rate: Rate from `decay_steps` on.
        start_warmup_step: Step at which the warmup starts (original
            `start_warmup_step`); steps before it count as warmup with a
            non-positive fraction, as in the original.
        name: Name scope of the ops.

    Example:

    >>> schedule = WarmupPolynomialDecay(1e-3, decay_steps=1000, warmup_steps=100)
    >>> round(float(schedule(50)), 6)  # halfway through the warmup
    0.0005
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        warmup_steps: int = 0,
        power: float = 1.0,
        end_learning_rate: float = 0.0,
        start_warmup_step: int = 0,
        name: str = "WarmupPolynomialDecay",
    ):
        super().__init__()
        if decay_steps <= 0:
            raise ValueError(f"`decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        if warmup_steps < 0:
            raise ValueError(f"`warmup_steps` must be >= 0. Received: warmup_steps={warmup_steps}")
        store_arguments(self, locals())

    def __call__(self, step: Any) -> Any:
        with keras.name_scope(self.name):
            step = ops.cast(step, "float32")
            decayed = self._polynomial_decay(step)
            if not self.warmup_steps:
                return decayed
            # Select with where (not Python `if`) so the schedule traces once.
            warmup_step = step - float(self.start_warmup_step)
            warmup = self.initial_learning_rate * warmup_step / float(self.warmup_steps)
            return ops.where(warmup_step < float(self.warmup_steps), warmup, decayed)

    def _polynomial_decay(self, step: Any) -> Any:
        """`tf.train.polynomial_decay(..., cycle=False)` at the raw step."""
        fraction_left = 1.0 - ops.minimum(step, float(self.decay_steps)) / float(self.decay_steps)
        return (self.initial_learning_rate - self.end_learning_rate) * ops.power(
            fraction_left, self.power
        ) + self.end_learning_rate

    def get_config(self) -> dict[str, Any]:
        return arguments_config(self)
