"""Hidden activations named as in `albert_config.json`."""

from __future__ import annotations

from collections.abc import Callable

import keras


def _gelu_tanh(x):
    return keras.activations.gelu(x, approximate=True)


def _gelu_erf(x):
    return keras.activations.gelu(x, approximate=False)


# The original ALBERT "gelu" is the tanh approximation (Hugging Face calls it
# "gelu_new"); "gelu_exact" is the erf form.
_ACTIVATIONS: dict[str, Callable] = {
    "gelu": _gelu_tanh,
    "gelu_new": _gelu_tanh,
    "gelu_exact": _gelu_erf,
    "relu": keras.activations.relu,
    "tanh": keras.activations.tanh,
    "linear": keras.activations.linear,
}


def get_activation(name: str) -> Callable:
    """Returns the activation function for an `AlbertConfig.hidden_act` name.

    Example:
    >>> float(get_activation("relu")(keras.ops.convert_to_tensor(-1.0)))
    0.0
    """
    try:
        return _ACTIVATIONS[name]
    except KeyError:
        raise ValueError(
            f"Unknown hidden activation {name!r}; use one of {sorted(_ACTIVATIONS)}."
        ) from None
