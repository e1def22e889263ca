"""`cut_to_longest`: packed features without the padding no row of the batch needs."""

from __future__ import annotations

import tensorflow as tf

# Cut lengths are rounded up to this many pieces by default: a few shapes, little padding.
LENGTH_STEP = 16


def cut_to_longest(features: dict[str, tf.Tensor], step: int = LENGTH_STEP) -> dict[str, tf.Tensor]:
    """[B, T] features cut to the longest row's length, rounded up to a multiple of `step`.

    Text is packed to `max_seq_length`, mostly padding for short sentences. Cutting it keeps
    the results (padded keys are masked out of attention) and the work shrinks with the text;
    rounding up keeps the distinct shapes few (one compilation each under XLA).

    Example:
    >>> mask = tf.constant([[1, 1, 1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0]])
    >>> cut_to_longest({"input_mask": mask}, step=2)["input_mask"].shape.as_list()
    [2, 4]
    """
    seq_length = tf.shape(features["input_mask"])[1]
    lengths = tf.reduce_sum(tf.cast(features["input_mask"], tf.int32), axis=1)
    longest = tf.maximum(tf.reduce_max(lengths), 1)  # An empty batch keeps one position.
    bound = tf.minimum((longest + step - 1) // step * step, seq_length)
    return {name: value[:, :bound] for name, value in features.items()}
