"""Metrics against reference computations written independently here (plain Python loops)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from albert_tf.finetune.classification.metrics import (
    accuracy,
    average_ranks,
    compute_metrics,
    f1,
    matthews_corrcoef,
    pearson,
    spearman,
)


def reference_binary_counts(labels, predictions):
    tp = sum(1 for y, p in zip(labels, predictions, strict=True) if y == 1 and p == 1)
    tn = sum(1 for y, p in zip(labels, predictions, strict=True) if y == 0 and p == 0)
    fp = sum(1 for y, p in zip(labels, predictions, strict=True) if y == 0 and p == 1)
    fn = sum(1 for y, p in zip(labels, predictions, strict=True) if y == 1 and p == 0)
    return tp, tn, fp, fn


def reference_f1(labels, predictions):
    tp, _, fp, fn = reference_binary_counts(labels, predictions)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def reference_mcc(labels, predictions):
    tp, tn, fp, fn = reference_binary_counts(labels, predictions)
    denominator = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return (tp * tn - fp * fn) / denominator if denominator else 0.0


def reference_pearson(xs, ys):
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    covariance = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    spread_x = math.sqrt(sum((x - mean_x) ** 2 for x in xs))
    spread_y = math.sqrt(sum((y - mean_y) ** 2 for y in ys))
    return covariance / (spread_x * spread_y)


def reference_ranks(values):
    # Rank = 1 + number of smaller values + (number of other equal values) / 2.
    return [
        1 + sum(1 for w in values if w < v) + (sum(1 for w in values if w == v) - 1) / 2
        for v in values
    ]


@pytest.mark.parametrize("seed", range(5))
def test_classification_metrics_match_reference(seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=200)
    # Predictions correlated with the labels, so the metrics are far from 0.
    predictions = np.where(rng.random(200) < 0.75, labels, 1 - labels)
    assert accuracy(labels, predictions) == pytest.approx(
        sum(int(y == p) for y, p in zip(labels, predictions, strict=True)) / 200
    )
    assert f1(labels, predictions) == pytest.approx(reference_f1(labels, predictions))
    assert matthews_corrcoef(labels, predictions) == pytest.approx(
        reference_mcc(labels, predictions)
    )


@pytest.mark.parametrize("seed", range(5))
def test_correlations_match_reference_with_ties(seed):
    rng = np.random.default_rng(seed)
    labels = np.round(rng.uniform(0, 5, size=150) * 2) / 2  # STS-B-like scores with many ties.
    predictions = labels + rng.normal(0, 1.0, size=150)
    predictions[:20] = np.round(predictions[:20])  # Ties on the prediction side too.
    assert pearson(labels, predictions) == pytest.approx(
        reference_pearson(labels.tolist(), predictions.tolist())
    )
    expected_spearman = reference_pearson(
        reference_ranks(labels.tolist()), reference_ranks(predictions.tolist())
    )
    assert spearman(labels, predictions) == pytest.approx(expected_spearman)
    np.testing.assert_allclose(average_ranks(labels), reference_ranks(labels.tolist()))


def test_edge_cases():
    assert matthews_corrcoef([0, 1, 0, 1], [1, 1, 1, 1]) == 0.0  # Constant predictions.
    assert matthews_corrcoef([0, 1, 0, 1], [0, 1, 0, 1]) == pytest.approx(1.0)
    assert matthews_corrcoef([0, 1, 0, 1], [1, 0, 1, 0]) == pytest.approx(-1.0)
    assert f1([0, 0], [0, 0]) == 0.0  # No positives anywhere.
    assert pearson([1, 2, 3], [2, 2, 2]) == 0.0
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    # Multiclass: macro F1 and multiclass MCC (perfect and chance-free cases).
    assert f1([0, 1, 2], [0, 1, 2]) == pytest.approx(1.0)
    assert matthews_corrcoef([0, 1, 2, 2], [0, 1, 2, 2]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="3 labels but 2 predictions"):
        accuracy([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="No examples"):
        accuracy([], [])


def test_compute_metrics():
    results = compute_metrics(("matthews_corrcoef", "accuracy"), [0, 1, 1, 0], [0, 1, 0, 0])
    assert list(results) == ["matthews_corrcoef", "accuracy"]
    assert results["accuracy"] == 0.75
    with pytest.raises(ValueError, match="Unknown metrics"):
        compute_metrics(("bleu",), [0], [0])
