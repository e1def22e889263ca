"""Export: SavedModels with the tokenizer in the graph, the Keras encoder bundle."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use (see albert_tf/lazy_exports.py).
_EXPORTS = {
    "export_saved_model": "albert_tf.export.saved_model",
    "load_albert_model": "albert_tf.export.saved_model",
    "load_encoder": "albert_tf.export.encoder_bundle",
    "save_encoder_bundle": "albert_tf.export.encoder_bundle",
    "export_endpoints": "albert_tf.export.endpoints",
    "whole_word_candidates": "albert_tf.export.fill_mask_words",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
