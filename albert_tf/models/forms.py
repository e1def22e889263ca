"""The chains that have fast forms, in plain ops, and the slots the runtime fills with them.

Model layers compute bias + activation, bias + residual + LayerNorm and the scaled, masked
softmax through this module. Each is written here once in plain TensorFlow ops: the reference
that runs unless the runtime installed a faster form for this machine, and that every fast form
is held to (`albert_tf.runtime`: `configure()` installs the forms it measured faster). The
model never imports the runtime; the runtime fills this module's slots, for the process
(`install`) or for one block on one thread (`using`). A fourth slot, `encoder_inference`, lets
the runtime run `AlbertEncoder`'s inference forward itself (its constant-weights serving form).

Rounding: a bfloat16 bias + activation and softmax are computed in bfloat16, as Keras computes
a mixed-precision layer (bfloat16 has float32's exponent range, so the mask adder and `exp` are
safe; sums still accumulate in float32), which keeps bfloat16 rather than float32 copies of
the [tokens, intermediate] activations and the probabilities for the backward. Float16 chains
and every LayerNorm are computed in float32.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator, Mapping

import keras
import tensorflow as tf

from albert_tf.models.activations import activation_math

# The slots: one per chain below, and the encoder's inference forward.
SLOTS = ("bias_activation", "residual_layer_norm", "scaled_masked_softmax", "encoder_inference")

_installed: dict[str, Callable] = {}  # For the process (`install`).
_scoped = threading.local()  # `using` blocks of this thread: a dict, or unset.


def installed(slot: str) -> Callable | None:
    """The fast form filling `slot` now (this thread's `using` first), or None: the reference."""
    scoped = getattr(_scoped, "forms", {})
    if slot in scoped:
        return scoped[slot]
    return _installed.get(slot)


def install(forms: Mapping[str, Callable | None]) -> dict[str, Callable | None]:
    """Fills `forms`' slots for the whole process (None: the reference); returns what they held.

    Passing the returned mapping back to `install` restores them.
    """
    _check_slots(forms)
    previous = {slot: _installed.get(slot) for slot in forms}
    for slot, form in forms.items():
        if form is None:
            _installed.pop(slot, None)
        else:
            _installed[slot] = form
    return previous


@contextlib.contextmanager
def using(**forms: Callable | None) -> Iterator[None]:
    """Within this block, on this thread, `forms` fill their slots (None: the reference).

    Example:
    >>> with using(scaled_masked_softmax=lambda scores, scale, adder=None: scores):
    ...     scaled_masked_softmax(tf.ones([1, 2]), 0.5).numpy().tolist()
    [[1.0, 1.0]]
    """
    _check_slots(forms)
    previous = getattr(_scoped, "forms", {})
    _scoped.forms = {**previous, **forms}
    try:
        yield
    finally:
        _scoped.forms = previous


def _check_slots(forms: Mapping[str, object]) -> None:
    unknown = sorted(set(forms) - set(SLOTS))
    if unknown:
        raise ValueError(f"No slot {unknown}; the slots are {SLOTS}.")


def _slot(reference: Callable[..., tf.Tensor]) -> Callable[..., tf.Tensor]:
    """`reference` behind the slot of its name; `.reference` keeps the plain form at hand."""

    @functools.wraps(reference)
    def chain(*args, **kwargs):
        return (installed(reference.__name__) or reference)(*args, **kwargs)

    chain.reference = reference
    return chain


def encoder_inference(training: bool | None) -> Callable | None:
    """The runtime's `AlbertEncoder` inference forward, `(encoder, inputs) -> outputs`, if one
    is installed and `training` is falsy; else None (the functional graph runs)."""
    return None if training else installed("encoder_inference")


@_slot
def bias_activation(x: tf.Tensor, bias: tf.Tensor | None, activation: str) -> tf.Tensor:
    """`activation(x + bias)` in `x`'s dtype (`bias` may be None; see the module for rounding).

    `activation` is an `AlbertConfig.hidden_act` name. Folding the Dense layer's bias in here
    lets a fast form add it in the same pass as the activation.

    Example:
    >>> out = bias_activation(tf.constant([[0.0, 1.0]]), tf.constant([1.0, -1.0]), "gelu")
    >>> [round(v, 4) for v in out.numpy()[0].tolist()]
    [0.8412, 0.0]
    """
    math_fn = activation_math(activation)
    if _is_bfloat16(x):
        return math_fn(x if bias is None else x + tf.cast(bias, x.dtype))
    y = tf.cast(x, tf.float32)
    if bias is not None:
        y += tf.cast(bias, tf.float32)
    return tf.cast(math_fn(y), x.dtype)


@_slot
def residual_layer_norm(
    x: tf.Tensor,
    residual: tf.Tensor,
    gamma: tf.Tensor,
    beta: tf.Tensor,
    epsilon: float,
    bias: tf.Tensor | None = None,
) -> tf.Tensor:
    """`LayerNorm(x + bias + residual)` over the last axis in float32, in `x`'s dtype.

    `bias` (optional) is a Dense layer's bias, added here rather than in a pass of its own.

    Example:
    >>> x = tf.constant([[1.0, 2.0, 3.0]])
    >>> out = residual_layer_norm(x, tf.zeros_like(x), tf.ones(3), tf.zeros(3), 1e-12)
    >>> [round(v, 4) for v in out.numpy()[0].tolist()]
    [-1.2247, 0.0, 1.2247]
    """
    y = tf.cast(x, tf.float32) + tf.cast(residual, tf.float32)
    if bias is not None:
        y += tf.cast(bias, tf.float32)
    centered = y - tf.reduce_mean(y, axis=-1, keepdims=True)
    variance = tf.reduce_mean(centered * centered, axis=-1, keepdims=True)
    normalized = centered * tf.math.rsqrt(variance + epsilon)
    return tf.cast(normalized * tf.cast(gamma, tf.float32) + tf.cast(beta, tf.float32), x.dtype)


@_slot
def scaled_masked_softmax(
    scores: tf.Tensor, scale: float, adder: tf.Tensor | None = None
) -> tf.Tensor:
    """`softmax(scores * scale + adder)` over the last axis, in `scores`' dtype.

    `adder` (no gradient) broadcasts against `scores`: 0 for keys to attend to, a large
    negative number for padding. Float32 inside, except for bfloat16 scores (see the module).

    Example:
    >>> probs = scaled_masked_softmax(tf.zeros((1, 3)), 1.0, tf.constant([0.0, 0, -1e4]))
    >>> [round(v, 3) for v in probs.numpy()[0].tolist()]
    [0.5, 0.5, 0.0]
    """
    dtype = scores.dtype if _is_bfloat16(scores) else tf.float32
    logits = tf.cast(scores, dtype) * tf.cast(scale, dtype)
    if adder is not None:
        logits += tf.cast(tf.stop_gradient(adder), dtype)
    return tf.cast(tf.nn.softmax(logits, axis=-1), scores.dtype)


def layer_norm_of_sum(
    layer_norm: keras.layers.LayerNormalization,
    x: tf.Tensor,
    residual: tf.Tensor,
    bias: tf.Tensor | None = None,
) -> tf.Tensor:
    """`layer_norm(x + bias + residual)` with `layer_norm`'s weights (`residual_layer_norm`)."""
    return residual_layer_norm(
        x, residual, layer_norm.gamma, layer_norm.beta, layer_norm.epsilon, bias=bias
    )


def get_activation(name: str) -> Callable[[tf.Tensor], tf.Tensor]:
    """The activation for an `AlbertConfig.hidden_act` name (`bias_activation` without a bias).

    Example:
    >>> float(get_activation("relu")(tf.constant(-1.0)))
    0.0
    """
    activation_math(name)  # Fails early on an unknown name.
    return lambda x: bias_activation(x, None, name)


def _is_bfloat16(x: tf.Tensor) -> bool:
    return keras.backend.standardize_dtype(x.dtype) == "bfloat16"
