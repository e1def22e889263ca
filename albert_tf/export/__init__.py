"""Export: SavedModels that tokenize in the graph (with TF Serving warm-up), TF Hub, bundles."""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "export_endpoints",
    "export_saved_model",
    "export_tfhub",
    "export_tfhub_encoder",
    "export_tfhub_preprocessor",
    "load_albert_model",
    "load_encoder",
    "load_tfhub_source",
    "read_warmup_requests",
    "save_encoder_bundle",
    "whole_word_candidates",
    "write_warmup_requests",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
