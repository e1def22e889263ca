"""The runtime's probes: each fast form timed against the plain reference it replaces.

`configure`'s "auto" runs these once per machine on CPUs (then reads the cached figures). Each
probe returns `{case: (fast seconds, plain seconds)}`: best of a few interleaved rounds, after a
warm-up call that compiles (XLA) or optimizes (grappler) each function. Shapes are
ALBERT-base's (hidden 768, 12 heads, intermediate 3072), small batches, so that a probe takes
seconds.

The probes leave the process as they found it: no global random state is drawn (Keras draws
initializer seeds from Python's `random`, restored afterwards) and every layer is named, so the
auto-generated names of the caller's later layers do not move.
"""

from __future__ import annotations

import contextlib
import functools
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.models import forms
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.runtime import fused_kernels
from albert_tf.runtime.compiled_serving import PROBED_BATCHES
from albert_tf.runtime.frozen_weights import constant_weights_function, graph_inference

Timings = dict[str, tuple[float, float]]

# ALBERT-base's block shapes; two layers sharing one block (the served loop), a small vocabulary.
PROBE_MODEL = AlbertConfig(
    vocab_size=128,
    num_hidden_layers=2,
    max_position_embeddings=128,
)


def interleaved_best(
    functions: Mapping[str, Callable[[], object]], rounds: int = 3, repeats: int = 3
) -> dict[str, float]:
    """Best seconds per call of each function; one warm-up call each, then rounds interleaved."""
    for function in functions.values():
        function()
    best = {name: float("inf") for name in functions}
    for _ in range(rounds):
        for name, function in functions.items():
            start = time.perf_counter()
            for _ in range(repeats):
                function()
            best[name] = min(best[name], (time.perf_counter() - start) / repeats)
    return best


def time_fused_chains(
    dtypes: Sequence[str] = ("float32", "bfloat16"),
    tokens: Sequence[int] = fused_kernels.PROBED_TOKENS,
    rounds: int = 3,
    repeats: int = 3,
) -> Timings:
    """`{"<chain>/<dtype>/<tokens>": (fused s, plain s)}`: each chain's forward + backward, as
    in training, over `tokens` positions (128-position sequences for the softmax) at
    ALBERT-base's widths.

    Each size is a case of its own: an XLA kernel's speed against TensorFlow's ops changes
    with the size (e.g. a reduction that XLA runs well on a fine-tuning batch and poorly on a
    few sequences). Sizes above the first are timed once per round (one call takes as long as
    several small ones).
    """
    timings = {}
    for dtype in dtypes:
        for size in tokens:
            cases = _chain_cases(tf.as_dtype(dtype), size)
            for chain, (call, args, differentiable) in cases.items():
                steps = {
                    "fast": _forward_backward(
                        call(fused_kernels.FUSED_CHAINS[chain]), differentiable
                    ),
                    "plain": _forward_backward(
                        call(getattr(forms, chain).reference), differentiable
                    ),
                }
                seconds = interleaved_best(
                    {name: _bound(step, args) for name, step in steps.items()},
                    rounds,
                    repeats if size == tokens[0] else 1,
                )
                timings[f"{chain}/{dtype}/{size}"] = (seconds["fast"], seconds["plain"])
    return timings


def _chain_cases(dtype: tf.DType, tokens: int) -> dict[str, tuple[Callable, tuple, int]]:
    """chain -> (chain function -> probe function, arguments, how many get gradients)."""
    hidden, intermediate = PROBE_MODEL.hidden_size, PROBE_MODEL.intermediate_size
    heads, length = PROBE_MODEL.num_attention_heads, 128
    batch = max(tokens // length, 1)

    def normal(shape, seed, kind=dtype):
        return tf.cast(tf.random.stateless_normal(shape, seed=(seed, 0)), kind)

    mask = tf.cast(tf.range(length) < length - 16, tf.float32)  # A padded tail.
    adder = tf.reshape((1.0 - mask) * -10000.0, [1, 1, 1, length])
    return {
        "bias_activation": (
            lambda chain: lambda x, bias: chain(x, bias, "gelu"),
            (normal([tokens, intermediate], 1), normal([intermediate], 2)),
            2,
        ),
        "residual_layer_norm": (
            lambda chain: (
                lambda x, residual, gamma, beta, bias: chain(
                    x, residual, gamma, beta, 1e-12, bias=bias
                )
            ),
            (
                normal([tokens, hidden], 3),
                normal([tokens, hidden], 4),
                normal([hidden], 5, tf.float32),
                normal([hidden], 6, tf.float32),
                normal([hidden], 7),
            ),
            5,
        ),
        "scaled_masked_softmax": (
            lambda chain: lambda scores, adder: chain(scores, 0.125, adder),
            (normal([batch, heads, length, length], 8), tf.tile(adder, [batch, 1, 1, 1])),
            1,
        ),
    }


def _forward_backward(function: Callable, differentiable: int) -> Callable:
    """A `tf.function` computing `function`'s output and its gradients, as a training step."""
    # A partial (no `__code__`): TensorFlow counts each probe's traces apart, not as retracing.
    return tf.function(functools.partial(_step, function, differentiable), autograph=False)


def _step(function: Callable, differentiable: int, *args) -> list[tf.Tensor]:
    wrt = args[:differentiable]
    with tf.GradientTape() as tape:
        tape.watch(wrt)
        output = function(*args)
    grads = tape.gradient(output, wrt)
    # One element of each: the call waits for all of them, without copying them out.
    return [tf.reshape(t, [-1])[0] for t in (output, *grads)]


def _bound(step: Callable, args: tuple) -> Callable[[], object]:
    return lambda: [t.numpy() for t in step(*args)]


def time_frozen_serving(dtypes: Sequence[str] = ("float32",), **sizes) -> Timings:
    """`{"<dtype>/batch_<B>": (frozen s, variables s)}`: a served encoder call on constants vs
    on variables, at each batch size (`sizes`: `time_served`'s).

    The variables call runs whatever chains are installed now (the form it would replace).
    """

    def calls(encoder: AlbertEncoder) -> dict[str, Callable]:
        variables = tf.function(lambda x: encoder(x, training=False), input_signature=[_ids_spec()])
        return {"fast": constant_weights_function(encoder), "plain": variables}

    return time_served(calls, dtypes, **sizes)


def time_compiled_serving(dtypes: Sequence[str] = ("float32",), **sizes) -> Timings:
    """`{"<dtype>/batch_<B>": (compiled s, graph s)}`: a served encoder call as one XLA program
    vs as TensorFlow's graph, at each batch size (`sizes`: `time_served`'s).

    Both run the serving form chosen so far (constant weights where `frozen_serving` was
    chosen, else variables, with whatever chains are installed): the form this one wraps.
    """

    def calls(encoder: AlbertEncoder) -> dict[str, Callable]:
        graph = graph_inference(encoder)
        return {"fast": tf.function(graph, jit_compile=True, autograph=False), "plain": graph}

    return time_served(calls, dtypes, **sizes)


def time_served(
    calls: Callable[[AlbertEncoder], Mapping[str, Callable]],
    dtypes: Sequence[str],
    batches: Sequence[int] = PROBED_BATCHES,
    length: int = 128,
    rounds: int = 3,
    repeats: int = 2,
    config: AlbertConfig = PROBE_MODEL,
) -> Timings:
    """`{"<dtype>/batch_<B>": (fast s, plain s)}`: the two served calls `calls(encoder)` makes
    of an encoder of `config` in `dtype`, on `[B, length]` inputs. A batch is timed once per
    round (it takes as long as several calls of one row)."""
    timings = {}
    for dtype in dtypes:
        functions = calls(_probe_encoder(config, dtype))
        for batch in batches:
            inputs = _probe_inputs(config, batch, length)
            seconds = interleaved_best(
                {name: _served(call, inputs) for name, call in functions.items()},
                rounds,
                repeats if batch == 1 else 1,
            )
            timings[f"{dtype}/batch_{batch}"] = (seconds["fast"], seconds["plain"])
    return timings


def _probe_encoder(config: AlbertConfig, dtype: str) -> AlbertEncoder:
    with _untouched_random_state():
        return AlbertEncoder(config, dtype=dtype, name="runtime_probe_encoder")


def _ids_spec() -> dict[str, tf.TensorSpec]:
    names = ("input_word_ids", "input_mask", "input_type_ids")
    return {name: tf.TensorSpec([None, None], tf.int32) for name in names}


def _probe_inputs(config: AlbertConfig, batch: int, length: int) -> dict[str, tf.Tensor]:
    rng = np.random.default_rng(0)
    return {
        "input_word_ids": tf.constant(
            rng.integers(0, config.vocab_size, (batch, length)), tf.int32
        ),
        "input_mask": tf.ones([batch, length], tf.int32),
        "input_type_ids": tf.zeros([batch, length], tf.int32),
    }


def _served(call: Callable, inputs: dict) -> Callable[[], object]:
    return lambda: call(inputs)["pooled_output"].numpy()


@contextlib.contextmanager
def _untouched_random_state() -> Iterator[None]:
    """Restores Python's and NumPy's global random state (Keras seeds initializers from it)."""
    python_state, numpy_state = random.getstate(), np.random.get_state()
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)
