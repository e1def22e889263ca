"""Longest-first truncation of a segment pair, the original `_truncate_seq_pair`, in closed form.

The original pops one piece at a time from the longer segment (from B on ties) until the pair
fits its budget. While both segments are too long, the longer one shrinks to the shorter one's
length and then they shrink in turn (B first), so B keeps `budget // 2` pieces unless A leaves
it more room. `longest_first_lengths` computes the kept lengths element-wise on NumPy arrays or
TensorFlow tensors (`xp=tf`), so the pretraining data builder (NumPy, no TensorFlow) and the
in-graph input packing (`text_packing.pack_segments`) share one implementation.

Example:
    >>> import numpy as np
    >>> longest_first_lengths(np.array([3, 10, 5]), np.array([10, 4, 5]), np.array([5, 8, 7]))
    (array([3, 4, 4]), array([2, 4, 3]))
    >>> truncate_pair_reference(5, 5, 7)
    (4, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np


def longest_first_lengths(len_a: Any, len_b: Any, budget: Any, xp: Any = np) -> tuple[Any, Any]:
    """(kept A pieces, kept B pieces) per element; `xp` is `numpy` or `tensorflow`."""
    fits = len_a + len_b <= budget
    kept_b = xp.minimum(len_b, xp.maximum(budget // 2, budget - len_a))
    kept_b = xp.where(fits, len_b, kept_b)
    kept_a = xp.where(fits, len_a, budget - kept_b)
    return kept_a, kept_b


def truncate_pair_reference(len_a: int, len_b: int, budget: int) -> tuple[int, int]:
    """The original loop on lengths (pure Python, the reference the tests compare with).

    Example:
        >>> truncate_pair_reference(3, 10, 5)
        (3, 2)
    """
    while len_a + len_b > budget:
        if len_a > len_b:
            len_a -= 1
        else:
            len_b -= 1
    return len_a, len_b
