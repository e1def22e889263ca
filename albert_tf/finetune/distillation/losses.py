"""The distillation losses the task families use (`FinetuneTask.distillation_loss`).

Keras's `LogitsDistillation` compares softmax probabilities only when its loss is a
`keras.losses.KLDivergence` instance; its default, the string "kl_divergence", resolves to the
plain function, which it then applies to the scaled logits themselves (negative "losses" that
teach nothing). The instance is passed here, once for every family.

Example:
    >>> import numpy as np
    >>> teacher = np.array([[2.0, 0.0]], "float32")
    >>> loss = logits_distillation(temperature=2.0)
    >>> round(float(loss.compute_loss(teacher, teacher)), 6)
    0.0
    >>> float(loss.compute_loss(teacher, -teacher)) > 0
    True
"""

from __future__ import annotations

import keras


def logits_distillation(temperature: float) -> keras.distillation.LogitsDistillation:
    """KL divergence of the student's softmax at `temperature` from the teacher's (times T²,
    as Hinton et al. scale it), over the last axis (classes, options or tags)."""
    return keras.distillation.LogitsDistillation(temperature, loss=keras.losses.KLDivergence())


def score_distillation() -> keras.distillation.FeatureDistillation:
    """Mean squared error between the teacher's and the student's outputs (a regression's
    scores: there is no distribution to soften)."""
    return keras.distillation.FeatureDistillation(loss="mse")
