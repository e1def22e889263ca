"""`frozen_inference`: a model's forward pass with its weights baked in as graph constants.

Served models never train, and on CPUs oneDNN is much faster with constant weights: it reorders
them once into its fastest layout (AMX tiles where the CPU has them) instead of on every call,
and grappler fuses each matmul with its bias, activation and residual
(`constant_weights.constant_weights_encoder`, the encoder's forward for this form). The runtime
chooses this form per machine (`frozen_serving` of `RuntimeOptions`); where it is not chosen, or
the runtime was never configured, `frozen_inference` reads the model's variables: the plain
reference. Where the runtime chose `compiled_serving`, the forward is also compiled by XLA
(`compiled_serving`).

The returned function has one input signature (the model's inputs, any batch and length), so
every serving signature that calls it shares one copy of the constants in the SavedModel.

The price is memory: oneDNN keeps its reordered copies of the weights beside the graph's
constants, and TensorFlow's one-time optimization of a graph full of constants raises the peak;
the encoder's loop over its shared layers keeps that to one copy of the blocks' weights.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import tensorflow as tf

from albert_tf.models import forms
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.runtime.choices import chosen
from albert_tf.runtime.compiled_serving import compiled_where_chosen
from albert_tf.runtime.constant_weights import ConstantWeights, constant_weights_encoder


def frozen_serving_enabled() -> bool:
    """Whether exports and CPU prediction freeze weights: the runtime's `frozen_serving` choice.

    False until `albert_tf.runtime.configure()` ran (library code serves from variables).
    """
    return chosen("frozen_serving")


def frozen_inference(model: keras.Model) -> Callable[[Any], Any]:
    """`model(inputs, training=False)` as a `tf.function`, in the serving forms the runtime chose.

    `graph_inference(model)` (on constant weights where `frozen_serving` was chosen, else on
    the variables), compiled by XLA for the batch sizes where `compiled_serving` was chosen
    (`compiled_serving.compiled_where_chosen`). Before `configure`, the plain reference.

    Example:
    >>> inputs = keras.Input((3,))
    >>> model = keras.Model(inputs, keras.layers.Dense(2, bias_initializer="ones")(inputs))
    >>> call = frozen_inference(model)
    >>> x = tf.ones([4, 3])
    >>> bool(tf.reduce_all(tf.abs(call(x) - model(x)) < 1e-6))
    True
    """
    dtype = keras.backend.standardize_dtype(model.compute_dtype)
    return compiled_where_chosen(graph_inference(model), [_input_spec(model)], dtype)


def graph_inference(model: keras.Model) -> Callable[[Any], Any]:
    """`model(inputs, training=False)` as a TensorFlow graph: frozen where the runtime chose it.

    Frozen (`frozen_serving_enabled()`), the weights are read now and later changes to `model`
    are not seen; else the function reads the model's variables.
    """
    if frozen_serving_enabled():
        return constant_weights_function(model)
    spec = _input_spec(model)
    return tf.function(lambda inputs: model(inputs, training=False), input_signature=[spec])


def constant_weights_function(model: keras.Model) -> Callable[[Any], Any]:
    """`model(inputs, training=False)` as a `tf.function` whose weights are graph constants.

    The weights are read now. Every `AlbertEncoder` in `model` runs its constant-weights forward
    (one copy of each block's weights, inside the loop over its shared layers); every other
    weight is a constant of the function's own graph (`keras.StatelessScope`).

    Example:
    >>> inputs = keras.Input((3,))
    >>> model = keras.Model(inputs, keras.layers.Dense(2, bias_initializer="ones")(inputs))
    >>> call = constant_weights_function(model)
    >>> bool(tf.reduce_all(tf.abs(call(tf.ones([4, 3])) - model(tf.ones([4, 3]))) < 1e-6))
    True
    >>> [op.type for op in call.get_concrete_function().graph.get_operations()
    ...  if op.type == "ReadVariableOp"]
    []
    """
    weights = ConstantWeights({id(variable): variable.numpy() for variable in model.variables})
    # The encoders' blocks' weights are made by their forward, in the graphs that use them.
    own = {
        id(variable)
        for encoder in _encoders(model)
        for row in encoder.layer_blocks
        for block in row
        for variable in block.weights
    }
    encoder_forward = constant_weights_encoder(weights)

    @tf.function(input_signature=[_input_spec(model)], autograph=False)
    def call(inputs):
        mapping = [(v, weights(v)) for v in model.variables if id(v) not in own]
        with (
            keras.StatelessScope(state_mapping=mapping, initialize_variables=False),
            forms.using(encoder_inference=encoder_forward),
        ):
            return model(inputs, training=False)

    return call


def _input_spec(model: keras.Model):
    return tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), model.input)


def _encoders(model: keras.layers.Layer) -> list[AlbertEncoder]:
    """Every `AlbertEncoder` among `model` and its models' layers, however deep.

    (An encoder held some other way still serves right: its blocks' weights are then also
    constants of the outer graph, unused there, and stored twice.)
    """
    if isinstance(model, AlbertEncoder):
        return [model]
    if not isinstance(model, keras.Model):
        return []
    return [encoder for layer in model.layers for encoder in _encoders(layer)]
