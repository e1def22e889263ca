"""Export: SavedModels with the tokenizer in the graph, the Keras encoder bundle."""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "export_endpoints",
    "export_saved_model",
    "load_albert_model",
    "load_encoder",
    "save_encoder_bundle",
    "whole_word_candidates",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
