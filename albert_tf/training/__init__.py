"""Pretraining: LAMB, schedules, distribution strategies, precision, the resumable loop."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use (see albert_tf/lazy_exports.py).
_EXPORTS = {
    "PretrainConfig": "albert_tf.training.pretrain_config",
    "train_and_evaluate": "albert_tf.training.pretrain",
    "Lamb": "albert_tf.training.lamb",
    "create_optimizer": "albert_tf.training.optimizers",
    "create_strategy": "albert_tf.training.strategy",
    "resolve_precision": "albert_tf.training.precision",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
