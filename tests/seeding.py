"""Every test starts from the same state, whatever ran before it on its worker.

* The same random state: unseeded draws (initializers, dropout, shuffles) otherwise continue
  from the state the tests before them left, so which tests share an xdist worker, and in what
  order, decided whether a draw-dependent assertion held: one failed in CI after passing in
  every local run.
* The plain reference forms: a run earlier on the worker (`train_and_evaluate` calls
  `albert_tf.runtime.configure()`) installed the fast forms for the whole process, so a test
  of the plain forms after it on the same worker saw the fast ones.
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
    """Reseeds and puts back the plain forms, before the test and the fixtures it builds."""
    from albert_tf import runtime

    reseed()
    runtime.reset()
