"""`predict_outputs`: a fine-tuned model's outputs over a dataset, at the speed of its export.

`model.predict` reads the weights from variables on every batch and runs every batch at its
packed length. On one CPU replica, prediction here runs as the exported SavedModels do:

* the weights are graph constants (`constant_weights_function`), so oneDNN reorders them once
  into its fastest layout instead of once per batch;
* each batch is cut to its longest text (`cut_to_longest`), so short texts cost less than
  `max_seq_length`.

Elsewhere (GPUs, TPUs, several replicas, or where the runtime did not choose frozen serving:
`albert_tf.runtime.configure`) it is `model.predict`, static shapes and all. The frozen function
is kept while the model's weights stay what they were (a fingerprint of their bytes), so
predicting several files after training freezes once.
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.runtime.frozen_weights import constant_weights_function, frozen_serving_enabled
from albert_tf.runtime.machine import has_accelerator
from albert_tf.runtime.trim_padding import cut_to_longest

# For Python loops over ready batches: with tf.data's autotuning on, such a loop on a small
# machine can end with a stall of seconds.
NOTHING_TO_TUNE = tf.data.Options()
NOTHING_TO_TUNE.autotune.enabled = False

# model -> (fingerprint of its weights, frozen function); the function holds the model weakly.
_FROZEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def freezes_for_prediction(strategy: tf.distribute.Strategy | None = None) -> bool:
    """Whether prediction under `strategy` runs on frozen weights: one replica, CPU only.

    Constant weights are a oneDNN (CPU) gain; an accelerator or several replicas keep
    `model.predict`, which places and splits the batches.
    """
    strategy = strategy or tf.distribute.get_strategy()
    return frozen_serving_enabled() and strategy.num_replicas_in_sync == 1 and not has_accelerator()


def frozen_model_call(model: keras.Model) -> Callable[[Any], Any]:
    """`constant_weights_function(model)`, made again only when the model's weights have changed.

    Example:
    >>> inputs = keras.Input((2,))
    >>> model = keras.Model(inputs, keras.layers.Dense(1, use_bias=False)(inputs))
    >>> frozen_model_call(model) is frozen_model_call(model)
    True
    >>> model.set_weights([np.ones((2, 1))])
    >>> call = frozen_model_call(model)
    >>> call(tf.constant([[1.0, 2.0]])).numpy().tolist()
    [[3.0]]
    """
    fingerprint = _fingerprint(model)
    cached = _FROZEN.get(model)
    if cached is not None and cached[0] == fingerprint:
        return cached[1]
    # A proxy: the cached function must not keep its own key (the model) alive.
    call = constant_weights_function(weakref.proxy(model))
    _FROZEN[model] = (fingerprint, call)
    return call


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
        strategy: the run's strategy (see `freezes_for_prediction`).
        position_fill: for outputs with a position axis (`[B, T, ...]`, e.g. span logits): the
            value of the positions a batch was cut at. None: the outputs have no position
            axis. Either way, batches of `[B, options, T]` features are not cut.

    Example:
    >>> inputs = {"input_mask": keras.Input((None,), dtype="int32", name="input_mask")}
    >>> x = keras.layers.Lambda(lambda m: keras.ops.cast(m, "float32")[:, :, None])(
    ...     inputs["input_mask"])
    >>> model = keras.Model(inputs, x)
    >>> batches = tf.data.Dataset.from_tensors({"input_mask": tf.constant([[1, 1, 0] + [0] * 29])})
    >>> from albert_tf.runtime import RuntimeOptions, configured
    >>> with configured(RuntimeOptions(fused_kernels="off", frozen_serving="on")):
    ...     outputs = predict_outputs(model, batches, position_fill=-1.0)  # Cut to 16.
    >>> outputs.shape, outputs[0, [0, 2, 15, 16, 31], 0].tolist()
    ((1, 32, 1), [1.0, 0.0, 0.0, -1.0, -1.0])
    """
    if not freezes_for_prediction(strategy):
        return _as_float32(model.predict(dataset, verbose=0))
    call = frozen_model_call(model)
    outputs = []
    for features in dataset.with_options(NOTHING_TO_TUNE):
        features = features[0] if isinstance(features, tuple) else features
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


def _fingerprint(model: keras.Model) -> bytes:
    """A digest of every weight's bytes (a small cost next to a pass over a dataset)."""
    digest = hashlib.blake2b(digest_size=16)
    for variable in model.variables:
        digest.update(np.ascontiguousarray(variable.numpy()).data)
    return digest.digest()
