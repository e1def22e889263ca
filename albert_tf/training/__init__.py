"""Pretraining: LAMB, schedules, distribution strategies, precision, the resumable loop."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "Lamb": ".lamb",
    "PretrainConfig": ".pretrain_config",
    "create_optimizer": ".optimizers",
    "create_strategy": ".strategy",
    "resolve_precision": ".precision",
    "train_and_evaluate": ".pretrain",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
