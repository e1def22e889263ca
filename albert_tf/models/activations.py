"""Hidden activations named as in `albert_config.json`, as elementwise math.

Layers apply them through their `Chains` (`albert_tf.models.chains`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import tensorflow as tf

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu_tanh(x: tf.Tensor) -> tf.Tensor:
    """The original ALBERT/BERT "gelu": `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`."""
    return 0.5 * x * (1.0 + tf.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))


def gelu_erf(x: tf.Tensor) -> tf.Tensor:
    """The exact GELU, `x Phi(x)`."""
    return 0.5 * x * (1.0 + tf.math.erf(x * (1.0 / math.sqrt(2.0))))


def _linear(x: tf.Tensor) -> tf.Tensor:
    return x


# The original ALBERT "gelu" is the tanh approximation (Hugging Face calls it
# "gelu_new"); "gelu_exact" is the erf form.
ACTIVATIONS: dict[str, Callable[[tf.Tensor], tf.Tensor]] = {
    "gelu": gelu_tanh,
    "gelu_new": gelu_tanh,
    "gelu_exact": gelu_erf,
    "relu": tf.nn.relu,
    "tanh": tf.tanh,
    "linear": _linear,
}


def activation_math(name: str) -> Callable[[tf.Tensor], tf.Tensor]:
    """The elementwise function for an `AlbertConfig.hidden_act` name (any float dtype).

    Example:
    >>> round(float(activation_math("gelu")(tf.constant(1.0))), 4)
    0.8412
    """
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ValueError(
            f"Unknown hidden activation {name!r}; use one of {sorted(ACTIVATIONS)}."
        ) from None
