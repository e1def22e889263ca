"""Every test starts from the same random state, whatever ran before it on its worker.

Unseeded draws (initializers, dropout, shuffles) otherwise continue from the state the tests
before them left, so which tests share an xdist worker, and in what order, decided whether a
draw-dependent assertion held: one failed in CI after passing in every local run.
"""

from __future__ import annotations

import pytest

SEED = 0


def reseed() -> None:
    """Seeds Python, NumPy, TensorFlow and Keras."""
    import keras

    keras.utils.set_random_seed(SEED)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Reseeds, before the test and the fixtures it builds."""
    reseed()
