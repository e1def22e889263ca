"""`predict_outputs`: a fine-tuned model's outputs over a dataset, as its export computes them.

`model.predict` runs every batch at its packed length. On one CPU replica, prediction here cuts
each batch to its longest text (`cut_to_longest`), as the exported SavedModels do, so short texts
cost less than `max_seq_length`; the outputs are the same (padded keys are masked out). One
`tf.function` per model, traced once, serves every batch.
Elsewhere (GPUs, TPUs, several replicas) it is `model.predict`: static shapes, and the strategy
places and splits the batches.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.runtime.machine import has_accelerator
from albert_tf.tokenization.trim_padding import cut_to_longest

# For Python loops over ready batches: with tf.data's autotuning on, such a loop on a small
# machine can end with a stall of seconds.
NOTHING_TO_TUNE = tf.data.Options()
NOTHING_TO_TUNE.autotune.enabled = False

# model -> its traced inference call; weak on the model, so a dropped model frees its entry.
_CALLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def cuts_batches(strategy: tf.distribute.Strategy | None = None) -> bool:
    """Whether prediction under `strategy` cuts batches: one replica, on the CPU."""
    strategy = strategy or tf.distribute.get_strategy()
    return strategy.num_replicas_in_sync == 1 and not has_accelerator()


def inference_call(model: keras.Model, features: Any) -> Callable[[Any], Any]:
    """`model(inputs, training=False)` as one `tf.function` per model, traced once for every
    batch size and length (an input signature of `features`' structure and ranks).

    Example:
    >>> inputs = keras.Input((2,))
    >>> model = keras.Model(inputs, keras.layers.Dense(1, use_bias=False)(inputs))
    >>> call = inference_call(model, tf.ones([3, 2]))
    >>> call is inference_call(model, tf.ones([5, 2]))
    True
    """
    if model not in _CALLS:
        model_ref = weakref.ref(model)  # The function must not keep its own cache key alive.
        spec = tf.nest.map_structure(
            lambda t: tf.TensorSpec([None] * t.shape.rank, t.dtype), features
        )
        _CALLS[model] = tf.function(
            lambda inputs: model_ref()(inputs, training=False), input_signature=[spec]
        )
    return _CALLS[model]


def predict_outputs(
    model: keras.Model,
    dataset: tf.data.Dataset,
    strategy: tf.distribute.Strategy | None = None,
    position_fill: float | None = None,
) -> np.ndarray:
    """The model's float32 outputs for every batch of features in `dataset`, in order.

    Args:
        model: a Keras model taking the encoder's input dict (`input_mask` among them).
        dataset: batches of feature dicts (`[B, T]` each, or `[B, options, T]`).
        strategy: the run's strategy (see `cuts_batches`).
        position_fill: for outputs with a position axis (`[B, T, ...]`, e.g. span logits): the
            value of the positions a batch was cut at. None: the outputs have no position
            axis. Either way, batches of `[B, options, T]` features are not cut.

    Example:
    >>> inputs = {"input_mask": keras.Input((None,), dtype="int32", name="input_mask")}
    >>> x = keras.layers.Lambda(lambda m: keras.ops.cast(m, "float32")[:, :, None])(
    ...     inputs["input_mask"])
    >>> model = keras.Model(inputs, x)
    >>> batches = tf.data.Dataset.from_tensors({"input_mask": tf.constant([[1, 1, 0] + [0] * 29])})
    >>> outputs = predict_outputs(model, batches, position_fill=-1.0)  # Cut to 16.
    >>> outputs.shape, outputs[0, [0, 2, 15, 16, 31], 0].tolist()
    ((1, 32, 1), [1.0, 0.0, 0.0, -1.0, -1.0])
    """
    if not cuts_batches(strategy):
        return _as_float32(model.predict(dataset, verbose=0))
    outputs = []
    for features in dataset.with_options(NOTHING_TO_TUNE):
        features = features[0] if isinstance(features, tuple) else features
        call = inference_call(model, features)
        full_length = features["input_mask"].shape[-1]
        if features["input_mask"].shape.rank == 2:
            features = cut_to_longest(features)
        output = _as_float32(call(features))
        if position_fill is not None and output.shape[1] < full_length:
            pad = [(0, 0), (0, full_length - output.shape[1])] + [(0, 0)] * (output.ndim - 2)
            output = np.pad(output, pad, constant_values=position_fill)
        outputs.append(output)
    return np.concatenate(outputs)


def _as_float32(output: np.ndarray) -> np.ndarray:
    """Logits as float32 (bf16 under mixed precision), for NumPy's argmax, softmax and JSON."""
    return np.asarray(output, dtype=np.float32)
