"""`frozen_inference`: a model's forward pass with its weights baked in as graph constants.

Served models never train, and on CPUs oneDNN is much faster with constant weights: it
reorders them once into its fastest layout (AMX tiles where the CPU has them) instead of on
every call (see `albert_tf.models.constant_weights_form`). Measured on a 2-core AMX Xeon, the
forward pass of a bf16 ALBERT-base classifier at length 128 took 44 instead of 64-66 ms at
batch 1, and 0.61-0.62 instead of 0.97-0.99 s at batch 32, calls alternating in one process
(`benchmarks/bench_serving.py` has the whole request against keras-hub and Hugging Face).

The returned function has one input signature (the model's inputs, any batch and length), so
every serving signature that calls it shares one copy of the constants in the SavedModel.

The price is memory: oneDNN keeps its reordered copies of the weights beside the graph's
constants, and TensorFlow's one-time optimization of a graph full of constants raises the peak.
Served bf16 (one process each, after calls at batch 1 and 32): ALBERT-base 1,249 MB resident
(1,064 MB from variables), ALBERT-large 1,591 MB (1,228 MB). The encoder applies its shared
layers in a loop (`AlbertEncoder`); unrolled, oneDNN kept one copy per layer (2,065 and 4,527 MB).
`ALBERT_TF_FROZEN_SERVING=0` at export time keeps the weights as variables (and makes the
fine-tuning scripts predict from variables).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.models.constant_weights_form import constant_weights_form


def frozen_serving_enabled() -> bool:
    """Whether exports and CPU prediction freeze weights (`ALBERT_TF_FROZEN_SERVING`, default on).

    Read at each call: fine-tuning runs predict on frozen weights too
    (`albert_tf.finetune.prediction`), and the variable turns that off as well.
    """
    return os.environ.get("ALBERT_TF_FROZEN_SERVING", "1") != "0"


def frozen_inference(model: keras.Model) -> Callable[[Any], Any]:
    """`model(inputs, training=False)` as a `tf.function` whose weights are constants.

    The weights are read now: later changes to `model` are not seen. With
    `ALBERT_TF_FROZEN_SERVING=0` the function reads the model's variables instead.

    Example:
    >>> inputs = keras.Input((3,))
    >>> model = keras.Model(inputs, keras.layers.Dense(2, bias_initializer="ones")(inputs))
    >>> call = frozen_inference(model)
    >>> x = tf.ones([4, 3])
    >>> bool(tf.reduce_all(tf.abs(call(x) - model(x)) < 1e-6))
    True
    >>> [op.type for op in call.get_concrete_function().graph.get_operations()
    ...  if op.type == "ReadVariableOp"]
    []
    """
    spec = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), model.input)
    if not frozen_serving_enabled():
        return tf.function(lambda inputs: model(inputs, training=False), input_signature=[spec])
    values = {id(variable): variable.numpy() for variable in model.variables}

    @tf.function(input_signature=[spec], autograph=False)
    def call(inputs):
        with _ConstantWeights(values), constant_weights_form():
            return model(inputs, training=False)

    return call


class _ConstantWeights(keras.StatelessScope):
    """Reading a variable gives its value as a constant of the graph being traced.

    One constant per (graph, variable): the blocks' weights are read inside the encoder's
    `tf.while_loop` body, and oneDNN caches a weight only when the constant is in the graph of
    the op that uses it (a constant captured from the enclosing graph arrives as an argument).
    """

    def __init__(self, values: dict[int, np.ndarray]):
        super().__init__()
        self._values = values
        self._constants: dict[tuple[int, int], tf.Tensor] = {}

    def get_current_value(self, variable):
        value = self._values.get(id(variable))
        if value is None:
            return None
        graph = tf.compat.v1.get_default_graph()
        key = (id(graph), id(variable))
        if key not in self._constants:
            self._constants[key] = _graph_constant(value)
        return self._constants[key]


def _graph_constant(value: np.ndarray) -> tf.Tensor:
    """`value` as a Const node of the graph being traced; vectors behind a PlaceholderWithDefault.

    Grappler folds constant expressions away: a bias of zeros would vanish and a LayerNorm scale
    of ones with it, and with them the `MatMul + BiasAdd` and LayerNorm patterns oneDNN fuses (a
    freshly initialized model then served at 2/3 the speed of its variables). A
    PlaceholderWithDefault is never folded; the matrices, whose being constant is the point,
    stay plain constants.
    """
    constant = tf.constant(value)
    if constant.shape.rank >= 2:
        return constant
    return tf.raw_ops.PlaceholderWithDefault(input=constant, shape=constant.shape)
