"""`compiled_where_chosen`: a served forward pass as one XLA program, where it measured faster.

TensorFlow's graph runs each op as its own kernel: for one short text per call, hundreds of
small ops (the LayerNorms' and GELU's elementwise passes, reshapes, transposes) cost about as
much as the matmuls between them. `jit_compile` makes the whole forward one XLA program: the
elementwise chains fused into the loops around XLA's own matmuls, nothing dispatched per op.
XLA's CPU matmuls are not oneDNN's (no AMX, no reordered constant weights) and its row
reductions are slower than TensorFlow's, so whether it wins depends on the CPU and on the batch:
the runtime probes one text per call and a batch (`probes.time_compiled_serving`) and keeps the
compiled form per case. Where it was kept for one case only, the served function routes each
call by its batch size (a `tf.cond`; both forms are in the SavedModel).

XLA compiles one program per input shape: the first call of each (batch size, length) pays the
compilation. Served text is cut to a multiple of 16 pieces (`cut_to_longest`), so calls of one
text meet at most `max_seq_length / 16` shapes. A SavedModel holding a compiled form needs XLA
in the process that serves it: `tf.saved_model.load` has it; TF Serving needs
`--xla_cpu_compilation_enabled=true` (without it, its first call of that form fails).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from albert_tf.runtime.choices import chosen

FORM = "compiled_serving"
# The batch sizes the serving probes time: one text per call, and a batch. A call of one row
# follows the first case, any other call the second.
PROBED_BATCHES = (1, 8)


def serving_cases(dtype: str) -> tuple[str, str]:
    """The probe's cases for one row per call and for batches, in `dtype`.

    >>> serving_cases("float32")
    ('float32/batch_1', 'float32/batch_8')
    """
    return tuple(f"{dtype}/batch_{batch}" for batch in PROBED_BATCHES)


def compiled_where_chosen(
    function: Callable[[Any], Any], input_signature: list, dtype: str
) -> Callable[[Any], Any]:
    """`function` (a served forward, a `tf.function`) compiled by XLA in the cases chosen.

    Args:
        function: the forward pass, inputs `[B, ...]` (any nest of tensors).
        input_signature: its input signature (one concrete function for every batch size).
        dtype: the compute dtype of the model it serves (the probe's case).

    Returns `function` itself where the runtime compiles neither case.
    """
    one_row, batches = (chosen(FORM, case) for case in serving_cases(dtype))
    if not (one_row or batches):
        return function
    compiled = tf.function(function, jit_compile=True, autograph=False)
    if one_row and batches:
        return tf.function(compiled, input_signature=input_signature, autograph=False)

    @tf.function(input_signature=input_signature, autograph=False)
    def routed(inputs):
        rows = tf.shape(tf.nest.flatten(inputs)[0])[0]
        one, many = (compiled, function) if one_row else (function, compiled)
        return tf.cond(tf.equal(rows, 1), lambda: one(inputs), lambda: many(inputs))

    return routed
