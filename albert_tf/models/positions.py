"""`gather_positions`: rows of a [B, T, H] sequence at per-example positions."""

from __future__ import annotations

from keras import ops


def gather_positions(sequence, positions):
    """`sequence` [B, T, H] at `positions` [B, P] -> [B, P, H]."""
    positions = ops.cast(positions, "int32")
    return ops.take_along_axis(sequence, ops.expand_dims(positions, -1), axis=1)
