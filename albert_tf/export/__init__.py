"""Export: SavedModels that tokenize in the graph (with TF Serving warm-up), TF Hub, bundles."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "export_endpoints": ".endpoints",
    "export_saved_model": ".saved_model",
    "export_tfhub": ".tfhub",
    "export_tfhub_encoder": ".tfhub_encoder",
    "export_tfhub_preprocessor": ".tfhub_preprocessor",
    "load_albert_model": ".saved_model",
    "load_encoder": ".encoder_bundle",
    "load_tfhub_source": ".tfhub",
    "read_warmup_requests": ".warmup",
    "save_encoder_bundle": ".encoder_bundle",
    "whole_word_candidates": ".fill_mask_words",
    "write_warmup_requests": ".warmup",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
