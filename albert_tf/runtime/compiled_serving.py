"""`compiled_for_one_row`: a served forward that runs one text per call as one XLA program.

TensorFlow's graph runs each op as its own kernel: for one short text per call, hundreds of
small ops (the LayerNorms' and GELU's elementwise passes, reshapes, transposes) cost about as
much as the matmuls between them where TensorFlow's oneDNN rewrites are off. `jit_compile` makes
the whole forward one XLA program. For batches the matmuls dominate and XLA's CPU matmuls are
no faster, so a call of several rows keeps the graph: the served function routes each call by
its batch size (a `tf.cond`; both forms are in the SavedModel).

XLA compiles one program per input shape: the first call of each length pays the compilation
(served text is cut to a multiple of 16 pieces, so at most `max_seq_length / 16` of them). A
SavedModel holding the compiled form needs XLA where it is served: `tf.saved_model.load` has
it; TF Serving needs `--xla_cpu_compilation_enabled=true`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf


def compiled_for_one_row(
    function: Callable[[Any], Any], input_signature: list
) -> Callable[[Any], Any]:
    """`function` (a forward over `[B, ...]` inputs), compiled by XLA for calls of one row.

    Example:
    >>> square = compiled_for_one_row(lambda x: x * x, [tf.TensorSpec([None, 2], tf.float32)])
    >>> square(tf.ones([1, 2])).numpy().tolist(), square(tf.ones([3, 2])).shape.as_list()
    ([[1.0, 1.0]], [3, 2])
    """
    compiled = tf.function(function, jit_compile=True, autograph=False)

    @tf.function(input_signature=input_signature, autograph=False)
    def routed(inputs):
        rows = tf.shape(tf.nest.flatten(inputs)[0])[0]
        return tf.cond(tf.equal(rows, 1), lambda: compiled(inputs), lambda: function(inputs))

    return routed
