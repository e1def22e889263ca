"""LiteRT (TFLite) export for phones: ids or text in, float32, float16 or int8 weights."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "LiteRtModel": ".runner",
    "export_litert": ".export",
    "ids_model": ".converter",
    "model_ops": ".ops",
    "text_model": ".converter",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
