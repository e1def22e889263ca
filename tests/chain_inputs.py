"""Small inputs for the Transformer's chains (bias + activation, residual LayerNorm, softmax).

Shared by the tests of the plain reference (`tests/models/test_chains.py`) and of its fused
forms (`tests/runtime/test_fused_kernels.py`).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

RNG = np.random.default_rng(0)
X = tf.constant(RNG.normal(size=(2, 5, 8)), tf.float32)
RESIDUAL = tf.constant(RNG.normal(size=(2, 5, 8)), tf.float32)
GAMMA = tf.constant(RNG.normal(size=(8,)), tf.float32)
BETA = tf.constant(RNG.normal(size=(8,)), tf.float32)
BIAS = tf.constant(RNG.normal(size=(8,)), tf.float32)
SCORES = tf.constant(RNG.normal(size=(2, 3, 5, 5)), tf.float32)
# One row with two padded keys, one with one.
ADDER = tf.constant([[[[0.0, 0, 0, -1e4, -1e4]]], [[[0.0, 0, 0, 0, -1e4]]]])
