"""Pretraining: LAMB, schedules, distribution strategies, precision, the resumable loop."""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "Lamb",
    "PretrainConfig",
    "create_optimizer",
    "create_strategy",
    "resolve_precision",
    "train_and_evaluate",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
