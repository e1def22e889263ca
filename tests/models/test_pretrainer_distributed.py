"""`AlbertPretrainer.fit` under MirroredStrategy over two logical CPUs equals one device.

Runs in a process of its own, forked before TensorFlow initializes (`tests.commands`):
logical devices must be set before it does.
"""

from __future__ import annotations

import json
import sys
import textwrap

import numpy as np
import pytest

from tests import commands

# Fits a seeded tiny pretrainer for 2 steps of global batch 8 on one device and
# under MirroredStrategy (2 replicas of 4); prints both histories and weights.
_CHILD = textwrap.dedent(
    """
    import json
    import keras, numpy as np, tensorflow as tf
    from albert_tf.training.strategy import configure_logical_cpus
    configure_logical_cpus(2)
    from albert_tf.config import AlbertConfig
    from albert_tf.models.encoder import AlbertEncoder
    from albert_tf.models.pretrainer import AlbertPretrainer
    from tests.models.conftest import TINY, _pretraining_features

    features = _pretraining_features(batch=16, predictions=4, seed=3)
    features["masked_lm_weights"][:8, 1:] = 0.0  # uneven weights between the replicas
    features["masked_lm_weights"][8:12, 2:] = 0.0

    def fit(strategy):
        with strategy.scope():
            keras.utils.set_random_seed(0)
            config = AlbertConfig(**{**TINY, "num_hidden_layers": 1,
                                     "hidden_dropout_prob": 0.0,
                                     "attention_probs_dropout_prob": 0.0})
            model = AlbertPretrainer(AlbertEncoder(config))
            model.compile(optimizer=keras.optimizers.SGD(0.5), jit_compile=False)
        data = tf.data.Dataset.from_tensor_slices(features).batch(8)
        history = model.fit(data, epochs=1, verbose=0, shuffle=False).history
        weights = [v.numpy().tolist() for v in model.trainable_variables[:3]]
        return {"history": {k: float(v[0]) for k, v in history.items()}, "weights": weights}

    one = fit(tf.distribute.OneDeviceStrategy("/cpu:0"))
    mirrored = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    assert mirrored.num_replicas_in_sync == 2
    print("RESULT", json.dumps({"one": one, "mirrored": fit(mirrored)}))
    """
)


@pytest.mark.slow  # Over 5 s: a subprocess starting TensorFlow.
def test_fit_under_mirrored_strategy_equals_one_device(tmp_path):
    process = commands.run([sys.executable, "-c", _CHILD], timeout=300, preloaded=True)
    assert process.returncode == 0, process.stderr[-4000:]
    line = [line for line in process.stdout.splitlines() if line.startswith("RESULT ")][-1]
    result = json.loads(line[len("RESULT ") :])
    one, mirrored = result["one"]["history"], result["mirrored"]["history"]
    assert set(one) == set(mirrored) >= {"loss", "masked_lm_loss", "sentence_order_loss"}
    for name in one:
        np.testing.assert_allclose(mirrored[name], one[name], rtol=1e-5, err_msg=name)
    for expected, actual in zip(
        result["one"]["weights"], result["mirrored"]["weights"], strict=True
    ):
        np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-6)
