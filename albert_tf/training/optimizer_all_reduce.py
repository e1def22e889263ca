"""The one place that touches a private Keras attribute: the optimizer's all-reduce.

Why: under a `tf.distribute` strategy, a Keras 3 (TensorFlow backend) optimizer
sums the gradients over replicas inside `apply` (`_all_reduce_sum_gradients`,
called from `_backend_update_step`), *after* it has clipped them
(`global_clipnorm`). Clipping per replica is not the original's clipping of the
global gradient, so `training/pretrain_step.py` all-reduces the gradients
itself, before `apply`, and switches the optimizer's own sum off here. Keras has
no public switch for this (its `clipnorm`/`global_clipnorm` run before the sum).

tests/training/test_optimizer_all_reduce.py checks, under MirroredStrategy over
two logical CPUs, that Keras still sums inside `apply` (so this is needed) and
that it stops after `disable_optimizer_all_reduce` (so this works): it fails
loudly when a Keras release changes either.
"""

from __future__ import annotations

import keras

PRIVATE_ATTRIBUTE = "_all_reduce_sum_gradients"


def disable_optimizer_all_reduce(optimizer: keras.optimizers.Optimizer) -> None:
    """Stops a Keras (TF backend) optimizer from summing gradients over replicas.

    Our step passes gradients that are already all-reduced (and must be, so
    that global-norm clipping sees the global gradient). A `LossScaleOptimizer`
    is handled through its inner optimizer.
    """
    inner = getattr(optimizer, "inner_optimizer", optimizer)
    if not callable(getattr(inner, PRIVATE_ATTRIBUTE, None)):
        raise RuntimeError(
            f"This Keras version's optimizer has no {PRIVATE_ATTRIBUTE}; the pretraining "
            "step needs an update for it (gradients would be summed over replicas twice). "
            "See albert_tf/training/optimizer_all_reduce.py."
        )
    setattr(inner, PRIVATE_ATTRIBUTE, lambda grads_and_vars: list(grads_and_vars))
