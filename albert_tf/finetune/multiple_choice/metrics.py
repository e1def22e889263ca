"""Multiple-choice metrics: accuracy, per RACE level (middle / high) too, and the baseline.

Example:
    >>> compute_metrics([0, 1, 2, 1], [0, 1, 0, 0], ["middle", "middle", "high", "high"])
    {'accuracy': 0.5, 'middle/accuracy': 1.0, 'high/accuracy': 0.0}
    >>> most_frequent_answer([1, 1, 0, 2])
    1
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from albert_tf.finetune.multiple_choice.examples import LEVELS


def compute_metrics(
    labels: Sequence[int], predictions: Sequence[int], levels: Sequence[str]
) -> dict[str, float]:
    """`accuracy`, plus `<level>/accuracy` for each RACE level present."""
    correct = np.asarray(labels) == np.asarray(predictions)
    metrics = {"accuracy": float(correct.mean())}
    levels = np.asarray(levels)
    for level in LEVELS:
        if (levels == level).any():
            metrics[f"{level}/accuracy"] = float(correct[levels == level].mean())
    return metrics


def most_frequent_answer(labels: Sequence[int]) -> int:
    """The answer index (letter) most frequent in `labels`; the lowest on ties."""
    counts = Counter(int(label) for label in labels)
    return min(counts, key=lambda label: (-counts[label], label))
