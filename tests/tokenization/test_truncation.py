"""The closed-form longest-first truncation equals the original loop, in NumPy and in TF."""

import numpy as np
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

from albert_tf.tokenization.truncation import longest_first_lengths, truncate_pair_reference

CASES = [(a, b, budget) for a in range(12) for b in range(12) for budget in range(0, 20)]


def test_numpy_and_tensorflow_equal_the_original_loop():
    expected = [truncate_pair_reference(a, b, budget) for a, b, budget in CASES]
    columns = [np.array(column) for column in zip(*CASES, strict=True)]
    for xp, convert in ((np, np.asarray), (tf, tf.constant)):
        kept_a, kept_b = longest_first_lengths(*(convert(c) for c in columns), xp=xp)
        got = list(zip(np.asarray(kept_a).tolist(), np.asarray(kept_b).tolist(), strict=True))
        assert got == expected, xp.__name__


@given(st.integers(1, 300), st.integers(1, 300), st.integers(2, 200))
def test_long_pairs_equal_the_original_loop(a, b, budget):
    kept = longest_first_lengths(np.array([a]), np.array([b]), budget)
    assert (int(kept[0][0]), int(kept[1][0])) == truncate_pair_reference(a, b, budget)
