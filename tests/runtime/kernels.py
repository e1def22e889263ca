"""Which kernels a frozen forward runs, and which this machine should run (the kernel tests).

`python -m tests.runtime.kernels <precision> <logdir>` prints both as one JSON line, so that a
subprocess with other oneDNN settings (read when TensorFlow loads) can be checked too.
"""

from __future__ import annotations

import collections
import glob
import json
import sys

import numpy as np
import tensorflow as tf
from tensorflow.tsl.profiler.protobuf import xplane_pb2

from albert_tf.config import AlbertConfig
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.runtime import machine
from albert_tf.runtime.frozen_weights import constant_weights_function
from albert_tf.runtime.serving_weights import serving_copy
from tests.conftest import TINY_ALBERT

# Per block: q, k, v, attention output, FFN in and out (one fused op each: matmul + bias (+
# GELU) (+ residual)); two LayerNorms.
MATMULS, LAYER_NORMS = 6, 2


def expected_kernels(precision: str) -> dict[str, str]:
    """The kernels a frozen forward runs here: oneDNN's fused matmuls and LayerNorms where
    TensorFlow hands the dtype to oneDNN; else Eigen's fused float32 matmuls (bf16: plain
    matmuls), and LayerNorms as the batch norms they are written as."""
    dtype = "bfloat16" if precision == "mixed_bfloat16" else "float32"
    if machine.onednn_runs(dtype):
        return {"matmuls": "_MklNativeFusedMatMul", "layer_norms": "_MklLayerNorm"}
    matmuls = "_FusedMatMul" if dtype == "float32" else "MatMul"
    return {"matmuls": matmuls, "layer_norms": "FusedBatchNormV3"}


def kernels_ran(precision: str, logdir: str) -> dict[str, str]:
    """The matmul and LayerNorm kernels a frozen tiny classifier ran (one each per block)."""
    config = AlbertConfig(**TINY_ALBERT)
    blocks = config.num_hidden_layers
    # Freshly initialized: zero biases and unit LayerNorm scales must not be folded away.
    model = serving_copy(
        AlbertClassifier(AlbertEncoder(config, dtype=precision), 3, dtype=precision)
    )
    types = op_types(constant_weights_function(model), _inputs(2, 16), logdir)
    matmuls = ("_MklNativeFusedMatMul", "_FusedMatMul", "MatMul")
    norms = ("_MklLayerNorm", "FusedBatchNormV3")
    return {
        "matmuls": next((n for n in matmuls if types[n] >= MATMULS * blocks), str(types)),
        "layer_norms": next((n for n in norms if types[n] == LAYER_NORMS * blocks), str(types)),
    }


def op_types(function, inputs, logdir: str) -> collections.Counter:
    """TensorFlow op types a call of `function` ran (from the profiler's trace)."""
    function(inputs)
    tf.profiler.experimental.start(logdir)
    function(inputs)
    tf.profiler.experimental.stop()
    space = xplane_pb2.XSpace()
    with open(sorted(glob.glob(f"{logdir}/**/*.xplane.pb", recursive=True))[-1], "rb") as f:
        space.ParseFromString(f.read())
    types = collections.Counter()
    for plane in space.planes:
        names = {key: meta.name for key, meta in plane.event_metadata.items()}
        for line in plane.lines:
            for event in line.events:
                name = names.get(event.metadata_id, "")
                if ":" in name:
                    types[name.rsplit(":", 1)[1]] += 1
    return types


def _inputs(batch: int, length: int) -> dict[str, tf.Tensor]:
    rng = np.random.default_rng(1)
    mask = np.ones((batch, length), np.int32)
    mask[0, length // 2 :] = 0
    return {
        "input_word_ids": tf.constant(
            rng.integers(5, TINY_ALBERT["vocab_size"], mask.shape), tf.int32
        ),
        "input_mask": tf.constant(mask),
        "input_type_ids": tf.zeros(mask.shape, tf.int32),
    }


if __name__ == "__main__":
    precision, logdir = sys.argv[1:3]
    report = {
        "ran": kernels_ran(precision, logdir),
        "expected": expected_kernels(precision),
        "machine": machine.describe_machine(),
    }
    print(json.dumps(report))
