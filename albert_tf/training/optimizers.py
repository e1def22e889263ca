"""`create_optimizer`: the optimizer and schedule of the original ALBERT recipe.

Mirrors the original `optimization.create_optimizer`: warmup + polynomial decay,
LAMB (or AdamW) with weight decay 0.01 that skips LayerNorm and bias variables,
and gradients clipped to global norm 1.0.
"""

from __future__ import annotations

from collections.abc import Sequence

import keras

from albert_tf.errors import UserError
from albert_tf.training.lamb import DEFAULT_EXCLUDE_FROM_WEIGHT_DECAY, Lamb
from albert_tf.training.schedules import WarmupPolynomialDecay
from albert_tf.training.training_config import OPTIMIZER_NAMES


def create_optimizer(
    name: str,
    learning_rate: float,
    num_train_steps: int,
    num_warmup_steps: int,
    weight_decay: float = 0.01,
    global_clipnorm: float | None = 1.0,
    gradient_accumulation_steps: int | None = None,
    bias_correction: bool = False,
    beta_1: float = 0.9,
    beta_2: float = 0.999,
    epsilon: float = 1e-6,
    power: float = 1.0,
    end_learning_rate: float = 0.0,
    start_warmup_step: int = 0,
    exclude_from_weight_decay: Sequence[str] = DEFAULT_EXCLUDE_FROM_WEIGHT_DECAY,
) -> keras.optimizers.Optimizer:
    """Builds the warmup/decay schedule and a LAMB or AdamW optimizer on it.

    Args:
        name: `"lamb"` (the original ALBERT LAMB, see `Lamb`) or `"adamw"`
            (`keras.optimizers.AdamW`, which always bias-corrects).
        learning_rate: Peak learning rate (paper: 0.00176 at batch 4096).
        num_train_steps: Steps of the polynomial decay (optimizer updates).
        num_warmup_steps: Steps of the linear warmup.
        weight_decay: Weight-decay rate (LAMB's `weight_decay_rate`).
        global_clipnorm: Clip gradients to this global norm; `None` disables.
        gradient_accumulation_steps: Average gradients over this many batches
            per update (`None` or >= 2).
        bias_correction: LAMB only: bias-correct the moments (the paper) instead
            of the original code's uncorrected moments. Keras AdamW always
            bias-corrects, so this is ignored for `"adamw"`.
        beta_1: First-moment decay.
        beta_2: Second-moment decay.
        epsilon: Added to `sqrt(v)`.
        power: Exponent of the polynomial decay.
        end_learning_rate: Learning rate at and after `num_train_steps`.
        start_warmup_step: First step of the warmup (original flag).
        exclude_from_weight_decay: Regexes searched in the variable path
            (LAMB, also skips layer adaptation) or the `tf.Variable` name, which
            on the TensorFlow backend is the same path (AdamW).

    Returns:
        A Keras optimizer whose `learning_rate` is a `WarmupPolynomialDecay`.

    Example:

    >>> optimizer = create_optimizer(
    ...     "lamb", learning_rate=0.00176, num_train_steps=125_000, num_warmup_steps=3125
    ... )
    """
    if name not in OPTIMIZER_NAMES:
        raise UserError(f"Unknown optimizer {name!r}: expected one of {OPTIMIZER_NAMES}.")
    schedule = WarmupPolynomialDecay(
        initial_learning_rate=learning_rate,
        decay_steps=num_train_steps,
        warmup_steps=num_warmup_steps,
        power=power,
        end_learning_rate=end_learning_rate,
        start_warmup_step=start_warmup_step,
    )
    common = dict(
        learning_rate=schedule,
        beta_1=beta_1,
        beta_2=beta_2,
        epsilon=epsilon,
        global_clipnorm=global_clipnorm,
        gradient_accumulation_steps=gradient_accumulation_steps,
    )
    if name == "lamb":
        return Lamb(
            weight_decay_rate=weight_decay,
            exclude_from_weight_decay=exclude_from_weight_decay,
            bias_correction=bias_correction,
            **common,
        )
    optimizer = keras.optimizers.AdamW(weight_decay=weight_decay, **common)
    # On the TensorFlow backend AdamW searches these in the tf.Variable name,
    # which is the Keras path plus ":0" (e.g. "encoder/layer_norm/gamma:0").
    optimizer.exclude_from_weight_decay(var_names=list(exclude_from_weight_decay))
    return optimizer
