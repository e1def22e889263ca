"""`LinearProbe`: L2-regularized logistic regression on frozen features (NumPy, Newton).

The sentence-task probe of every cell: fit on the frozen pooled output of some held-out
records, scored on others. Deterministic (no random draws) and exact to convergence.

Example:
>>> import numpy as np
>>> features = np.array([[0.0], [1.0], [2.0], [3.0]])
>>> probe = LinearProbe().fit(features, np.array([0, 0, 1, 1]))
>>> probe.predict(np.array([[0.2], [2.8]])).tolist()
[0, 1]
"""

from __future__ import annotations

import numpy as np


class LinearProbe:
    """Binary logistic regression on standardized features.

    Args:
        l2: penalty on the weights (not the bias), per example.
        iterations: Newton steps at most.
    """

    def __init__(self, l2: float = 1e-2, iterations: int = 50):
        self.l2 = l2
        self.iterations = iterations
        self.mean: np.ndarray | None = None
        self.scale: np.ndarray | None = None
        self.weights: np.ndarray | None = None

    def _design(self, features: np.ndarray) -> np.ndarray:
        standardized = (np.asarray(features, np.float64) - self.mean) / self.scale
        return np.concatenate([standardized, np.ones((len(standardized), 1))], axis=1)

    def fit(self, features: np.ndarray, labels: np.ndarray) -> LinearProbe:
        features = np.asarray(features, np.float64)
        labels = np.asarray(labels, np.float64).reshape(-1)
        self.mean = features.mean(axis=0)
        self.scale = features.std(axis=0) + 1e-6
        x = self._design(features)
        n, d = x.shape
        penalty = np.full(d, self.l2 * n)
        penalty[-1] = 0.0
        w = np.zeros(d)
        for _ in range(self.iterations):
            p = 1.0 / (1.0 + np.exp(-(x @ w)))
            gradient = x.T @ (p - labels) + penalty * w
            hessian = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(d)
            step = np.linalg.solve(hessian, gradient)
            w -= step
            if np.max(np.abs(step)) < 1e-8:
                break
        self.weights = w
        return self

    def predict(self, features: np.ndarray) -> np.ndarray:
        return (self._design(features) @ self.weights > 0).astype(np.int64)

    def accuracy(self, features: np.ndarray, labels: np.ndarray) -> float:
        return float(np.mean(self.predict(features) == np.asarray(labels).reshape(-1)))
