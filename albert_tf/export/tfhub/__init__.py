"""TF Hub / Kaggle Models export: a preprocessor and a trainable encoder SavedModel."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "export_tfhub": ".export",
    "export_tfhub_encoder": ".encoder",
    "export_tfhub_preprocessor": ".preprocessor",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
