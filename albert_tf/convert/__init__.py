"""Checkpoint conversion: original TF1, Hugging Face and keras-hub, both ways, with task heads."""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "convert_checkpoint",
    "grow_checkpoint",
    "load_hf_model",
    "load_keras_hub_model",
    "load_model",
    "save_model",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
