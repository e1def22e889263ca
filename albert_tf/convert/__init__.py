"""Checkpoint conversion: original TF1 and Hugging Face checkpoints, both ways, with task heads."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use (see albert_tf/lazy_exports.py).
_EXPORTS = {
    "convert_checkpoint": "albert_tf.convert.convert",
    "load_model": "albert_tf.convert.convert",
    "load_hf_model": "albert_tf.convert.convert",
    "save_model": "albert_tf.convert.convert",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
