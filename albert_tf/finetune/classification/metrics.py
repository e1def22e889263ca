"""GLUE metrics over a whole evaluation set, in NumPy (no scipy/sklearn).

Example:
    >>> compute_metrics(("accuracy", "f1"), np.array([0, 1, 1]), np.array([0, 1, 0]))
    {'accuracy': 0.6666666666666666, 'f1': 0.6666666666666666}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def accuracy(labels: np.ndarray, predictions: np.ndarray) -> float:
    """Fraction of predicted class ids equal to the labels."""
    labels, predictions = _as_pair(labels, predictions)
    return float(np.mean(labels == predictions))


def f1(labels: np.ndarray, predictions: np.ndarray) -> float:
    """F1 of class 1 for binary ids (GLUE's MRPC/QQP F1); macro-average over classes otherwise.

    A class never predicted and never present scores 0, as sklearn's `zero_division=0`.
    """
    labels, predictions = _as_pair(labels, predictions)
    classes = np.union1d(labels, predictions).astype(np.int64)
    if classes.size and classes.max() <= 1:
        return _class_f1(labels, predictions, 1)
    return float(np.mean([_class_f1(labels, predictions, c) for c in classes]))


def _class_f1(labels: np.ndarray, predictions: np.ndarray, positive: int) -> float:
    true_positive = np.sum((predictions == positive) & (labels == positive))
    predicted = np.sum(predictions == positive)
    actual = np.sum(labels == positive)
    if predicted + actual == 0:
        return 0.0
    return float(2 * true_positive / (predicted + actual))


def matthews_corrcoef(labels: np.ndarray, predictions: np.ndarray) -> float:
    """Matthews correlation (CoLA), the multiclass form (Gorodkin 2004); 0 when undefined."""
    labels, predictions = _as_pair(labels, predictions)
    classes, encoded = np.unique(np.concatenate([labels, predictions]), return_inverse=True)
    y_true, y_pred = encoded[: labels.size], encoded[labels.size :]
    confusion = np.zeros((classes.size, classes.size), np.float64)
    np.add.at(confusion, (y_true, y_pred), 1.0)
    true_counts, pred_counts = confusion.sum(axis=1), confusion.sum(axis=0)
    correct, total = np.trace(confusion), confusion.sum()
    numerator = correct * total - true_counts @ pred_counts
    denominator = np.sqrt(total**2 - pred_counts @ pred_counts) * np.sqrt(
        total**2 - true_counts @ true_counts
    )
    return float(numerator / denominator) if denominator > 0 else 0.0


def pearson(labels: np.ndarray, predictions: np.ndarray) -> float:
    """Pearson correlation; 0 when either side is constant."""
    x, y = _as_pair(labels, predictions, np.float64)
    x, y = x - x.mean(), y - y.mean()
    denominator = np.sqrt(np.sum(x * x) * np.sum(y * y))
    return float(np.sum(x * y) / denominator) if denominator > 0 else 0.0


def spearman(labels: np.ndarray, predictions: np.ndarray) -> float:
    """Spearman correlation: Pearson of the ranks, ties given their average rank."""
    x, y = _as_pair(labels, predictions, np.float64)
    return pearson(average_ranks(x), average_ranks(y))


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks; tied values share the mean of their ranks (scipy's "average")."""
    values = np.asarray(values)
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    # Start index of each run of equal values, and the run each sorted position is in.
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    run = np.cumsum(np.r_[True, sorted_values[1:] != sorted_values[:-1]]) - 1
    ends = np.r_[starts[1:], values.size]
    mean_rank = (starts + ends + 1) / 2.0  # Mean of the 1-based ranks start+1 .. end.
    ranks = np.empty(values.size, np.float64)
    ranks[order] = mean_rank[run]
    return ranks


METRICS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "accuracy": accuracy,
    "f1": f1,
    "matthews_corrcoef": matthews_corrcoef,
    "pearson": pearson,
    "spearman": spearman,
}


def compute_metrics(
    names: Sequence[str], labels: np.ndarray, predictions: np.ndarray
) -> dict[str, float]:
    """The metrics called `names` (see `METRICS`) of predicted ids or scores vs labels."""
    unknown = [name for name in names if name not in METRICS]
    if unknown:
        raise ValueError(f"Unknown metrics {unknown}; choose from {sorted(METRICS)}.")
    return {name: METRICS[name](labels, predictions) for name in names}


def _as_pair(labels, predictions, dtype=None) -> tuple[np.ndarray, np.ndarray]:
    labels = np.asarray(labels, dtype).reshape(-1)
    predictions = np.asarray(predictions, dtype).reshape(-1)
    if labels.shape != predictions.shape:
        raise ValueError(
            f"{labels.size} labels but {predictions.size} predictions; they must match."
        )
    if labels.size == 0:
        raise ValueError("No examples to score.")
    return labels, predictions
