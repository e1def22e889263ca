"""LAMB as in the original ALBERT release (`lamb_optimizer.py`).

Keras 3 ships `keras.optimizers.Lamb`, but it differs from the optimizer
ALBERT was trained with: its weight decay is decoupled (applied outside the
trust ratio), it cannot exclude variables from layer adaptation, and it always
bias-corrects the moments. This class reproduces the original update:

    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g ** 2
    u = m / (sqrt(v) + eps)             # m, v bias-corrected if asked
    u += weight_decay_rate * w          # unless excluded from weight decay
    r = ||w|| / ||u|| if both > 0 else 1  # unless excluded from adaptation
    w -= lr * r * u
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import keras
import tensorflow as tf

# The original ALBERT/BERT exclusions: LayerNorm scales/offsets and all biases.
DEFAULT_EXCLUDE_FROM_WEIGHT_DECAY = ("LayerNorm", "layer_norm", "bias")


def variable_path(variable: Any) -> str:
    """The name the exclusion patterns are searched in.

    Keras 3 variables expose their full path (`"encoder/layer_norm/gamma"`);
    the leaf `name` (`"gamma"`) would not tell LayerNorm weights apart.
    """
    path = getattr(variable, "path", None)
    return path if path is not None else variable.name


def matches_any(patterns: Sequence[str], name: str) -> bool:
    """Whether any regex in `patterns` is found (`re.search`) in `name`."""
    return any(re.search(pattern, name) is not None for pattern in patterns)


@keras.saving.register_keras_serializable(package="albert_tf")
class Lamb(keras.optimizers.Optimizer):
    """The LAMB optimizer of the original ALBERT code (You et al. 2019).

    Weight decay is part of the update (inside the trust ratio) and is not the
    base class's decoupled `weight_decay`, which must stay `None`. Gradient
    clipping, gradient accumulation, EMA and loss scaling come from the Keras
    base class and work as for any Keras optimizer.

    Args:
        learning_rate: A float or a
            `keras.optimizers.schedules.LearningRateSchedule`.
        beta_1: Decay rate of the first-moment estimate.
        beta_2: Decay rate of the second-moment estimate.
        epsilon: Added to `sqrt(v)` for numerical stability.
        weight_decay_rate: Coefficient of `w` added to the update.
        exclude_from_weight_decay: Regexes; a variable whose path contains a
            match gets no weight decay.
        exclude_from_layer_adaptation: Regexes; a variable whose path contains
            a match uses a trust ratio of 1. `None` means the same patterns as
            `exclude_from_weight_decay`, as in the original.
        bias_correction: `False` reproduces the original ALBERT code; `True`
            bias-corrects `m` and `v` as in the LAMB paper.
        **kwargs: Base optimizer arguments (`global_clipnorm`,
            `gradient_accumulation_steps`, `use_ema`, `name`, ...).

    Example:

    >>> optimizer = Lamb(learning_rate=1e-3, weight_decay_rate=0.01)
    >>> kernel = keras.Variable([[1.0, 2.0]], name="kernel")
    >>> optimizer.apply([keras.ops.ones((1, 2))], [kernel])
    """

    def __init__(
        self,
        learning_rate: float | keras.optimizers.schedules.LearningRateSchedule = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-6,
        weight_decay_rate: float = 0.01,
        exclude_from_weight_decay: Sequence[str] | None = DEFAULT_EXCLUDE_FROM_WEIGHT_DECAY,
        exclude_from_layer_adaptation: Sequence[str] | None = None,
        bias_correction: bool = False,
        weight_decay: float | None = None,
        name: str | None = None,
        **kwargs: Any,
    ):
        if weight_decay is not None:
            raise ValueError(
                "Lamb applies its weight decay inside the update: pass "
                f"`weight_decay_rate={weight_decay}` instead of `weight_decay` (the "
                "base class's decoupled decay)."
            )
        super().__init__(learning_rate=learning_rate, weight_decay=None, name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.weight_decay_rate = weight_decay_rate
        self.exclude_from_weight_decay_patterns = tuple(exclude_from_weight_decay or ())
        self.exclude_from_layer_adaptation_patterns = (
            None if exclude_from_layer_adaptation is None else tuple(exclude_from_layer_adaptation)
        )
        self.bias_correction = bias_correction

    def build(self, var_list: list[keras.Variable]) -> None:
        """Creates the moments and decides, once per variable, which rules apply.

        The decisions are made here, on Keras variables, because on the
        TensorFlow backend `update_step` receives the underlying (possibly
        per-replica) `tf.Variable`, whose name is not the Keras path.
        """
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(
            var_list, ["momentum", "velocity"]
        )
        adaptation_patterns = (
            self.exclude_from_weight_decay_patterns
            if self.exclude_from_layer_adaptation_patterns is None
            else self.exclude_from_layer_adaptation_patterns
        )
        paths = [variable_path(variable) for variable in var_list]
        self._uses_weight_decay = tuple(
            bool(self.weight_decay_rate)
            and not matches_any(self.exclude_from_weight_decay_patterns, path)
            for path in paths
        )
        self._uses_layer_adaptation = tuple(
            not matches_any(adaptation_patterns, path) for path in paths
        )

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        """Applies one LAMB update to `variable` (float32 arithmetic)."""
        index = self._get_variable_index(variable)
        momentum = self._momentums[index]
        velocity = self._velocities[index]

        # Embedding gradients arrive as IndexedSlices; LAMB needs the dense
        # tensor anyway (moments decay everywhere, the norm is per tensor).
        gradient = tf.cast(tf.convert_to_tensor(gradient), tf.float32)
        weight = tf.cast(tf.convert_to_tensor(variable), tf.float32)
        lr = tf.cast(learning_rate, tf.float32)

        next_m = self.beta_1 * tf.cast(momentum, tf.float32) + (1.0 - self.beta_1) * gradient
        next_v = self.beta_2 * tf.cast(velocity, tf.float32) + (1.0 - self.beta_2) * tf.square(
            gradient
        )
        self.assign(momentum, next_m)
        self.assign(velocity, next_v)

        if self.bias_correction:
            step = tf.cast(self.iterations + 1, tf.float32)
            next_m = next_m / (1.0 - tf.pow(tf.constant(self.beta_1, tf.float32), step))
            next_v = next_v / (1.0 - tf.pow(tf.constant(self.beta_2, tf.float32), step))

        update = next_m / (tf.sqrt(next_v) + self.epsilon)
        if self._uses_weight_decay[index]:
            update += self.weight_decay_rate * weight

        if self._uses_layer_adaptation[index]:
            weight_norm = tf.norm(weight)
            update_norm = tf.norm(update)
            # tf.where keeps the step free of Python branches on tensor values;
            # the safe denominator avoids a NaN in the unselected branch.
            both_positive = tf.logical_and(weight_norm > 0.0, update_norm > 0.0)
            safe_update_norm = tf.where(both_positive, update_norm, 1.0)
            ratio = tf.where(both_positive, weight_norm / safe_update_norm, 1.0)
            update = ratio * update

        self.assign_sub(variable, lr * update)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "beta_1": self.beta_1,
                "beta_2": self.beta_2,
                "epsilon": self.epsilon,
                "weight_decay_rate": self.weight_decay_rate,
                "exclude_from_weight_decay": list(self.exclude_from_weight_decay_patterns),
                "exclude_from_layer_adaptation": (
                    None
                    if self.exclude_from_layer_adaptation_patterns is None
                    else list(self.exclude_from_layer_adaptation_patterns)
                ),
                "bias_correction": self.bias_correction,
            }
        )
        return config
