"""`Chains`: the Transformer's elementwise chains a model computes, as one explicit object.

Model layers compute bias + activation, bias + residual + LayerNorm and the scaled, masked
softmax through the `Chains` they hold (`layer.chains`). `PLAIN` holds the functions below,
written once in plain TensorFlow ops: the reference that every layer runs unless it was given
other chains, and that every fast form is held to. The model never imports the runtime: the
runtime builds its own `Chains` (`albert_tf.runtime.Runtime.chains`), and whoever trains a
model hands them to it with `use_chains(model, chains)`; nothing here is global state.

Rounding: a bfloat16 bias + activation and softmax are computed in bfloat16, as Keras computes
a mixed-precision layer (bfloat16 has float32's exponent range, so the mask adder and `exp` are
safe; sums still accumulate in float32), which keeps bfloat16 rather than float32 copies of
the [tokens, intermediate] activations and the probabilities for the backward. Float16 chains
and every LayerNorm are computed in float32.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import keras
import tensorflow as tf

from albert_tf.models.activations import activation_math


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


@dataclasses.dataclass(frozen=True)
class Chains:
    """The elementwise chains a model's layers run; each has the signature of its reference.

    Example:
    >>> PLAIN.bias_activation is bias_activation
    True
    >>> fast = Chains(bias_activation=lambda x, bias, activation: x)
    >>> fast.residual_layer_norm is residual_layer_norm  # The other chains stay plain.
    True
    """

    bias_activation: Callable[..., tf.Tensor] = bias_activation
    residual_layer_norm: Callable[..., tf.Tensor] = residual_layer_norm
    scaled_masked_softmax: Callable[..., tf.Tensor] = scaled_masked_softmax

    def layer_norm_of_sum(
        self,
        layer_norm: keras.layers.LayerNormalization,
        x: tf.Tensor,
        residual: tf.Tensor,
        bias: tf.Tensor | None = None,
    ) -> tf.Tensor:
        """`layer_norm(x + bias + residual)` with `layer_norm`'s weights."""
        return self.residual_layer_norm(
            x, residual, layer_norm.gamma, layer_norm.beta, layer_norm.epsilon, bias=bias
        )

    def activation(self, name: str) -> Callable[[tf.Tensor], tf.Tensor]:
        """The activation for an `AlbertConfig.hidden_act` name (`bias_activation`, no bias)."""
        activation_math(name)  # Fails early on an unknown name.
        return lambda x: self.bias_activation(x, None, name)


PLAIN = Chains()


class UsesChains:
    """A layer that computes its chains with `self.chains` (`PLAIN` unless `use_chains` ran)."""

    chains: Chains = PLAIN


def use_chains(model: keras.layers.Layer, chains: Chains) -> keras.layers.Layer:
    """Gives every layer of `model` that computes chains `chains`; returns `model`.

    Takes effect from the next trace: call it before `fit` or `compile` traces the step.

    Example:
    >>> from albert_tf.config import AlbertConfig
    >>> from albert_tf.models.encoder import AlbertEncoder
    >>> encoder = use_chains(AlbertEncoder(AlbertConfig.preset("albert_tiny")), Chains())
    >>> {layer.chains for layer in chain_layers(encoder)} == {Chains()}
    True
    """
    for layer in chain_layers(model):
        layer.chains = chains
    return model


def chain_layers(model: keras.layers.Layer) -> list[UsesChains]:
    """The layers of `model` (itself included) that compute chains.

    Keras 3 has no public walk over nested layers of custom layers: `_flatten_layers` is
    the one private API used here (tests/models/test_chains.py fails loudly if it changes).
    """
    return [layer for layer in model._flatten_layers() if isinstance(layer, UsesChains)]


def get_activation(name: str) -> Callable[[tf.Tensor], tf.Tensor]:
    """The plain activation for an `AlbertConfig.hidden_act` name.

    Example:
    >>> float(get_activation("relu")(tf.constant(-1.0)))
    0.0
    """
    return PLAIN.activation(name)


def _is_bfloat16(x: tf.Tensor) -> bool:
    return keras.backend.standardize_dtype(x.dtype) == "bfloat16"
