"""Checkpoint conversion: original TF1, Hugging Face and keras-hub, both ways, with task heads."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "convert_checkpoint": ".convert",
    "grow_checkpoint": ".vocabulary_growth",
    "load_hf_model": ".convert",
    "load_keras_hub_model": ".keras_hub_preset",
    "load_model": ".convert",
    "save_model": ".convert",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
