"""Export: SavedModels that tokenize in the graph (with TF Serving warm-up), bundles, and the
file formats (`export.tfhub`, `export.litert`, `export.onnx`) of an `ExportSource`."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "ExportSource": ".export_source",
    "export_endpoints": ".endpoints",
    "export_saved_model": ".saved_model",
    "load_albert_model": ".saved_model",
    "load_encoder": ".encoder_bundle",
    "load_export_source": ".export_source",
    "model_kind": ".model_kind",
    "read_warmup_requests": ".warmup",
    "save_encoder_bundle": ".encoder_bundle",
    "whole_word_candidates": ".fill_mask_words",
    "write_warmup_requests": ".warmup",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
