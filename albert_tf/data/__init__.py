"""Pretraining data: documents -> SOP instances -> n-gram masks -> TFRecords; the input pipeline."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use (see albert_tf/lazy_exports.py).
_EXPORTS = {
    "BuilderOptions": "albert_tf.data.builder",
    "build_pretraining_data": "albert_tf.data.builder",
    "read_documents": "albert_tf.data.documents",
    "convert_wikitext": "albert_tf.data.documents",
    "InstanceOptions": "albert_tf.data.instances",
    "MaskingOptions": "albert_tf.data.masking",
    "pretrain_dataset": "albert_tf.data.pretrain_input",
    "check_records": "albert_tf.data.pretrain_input",
    "pretraining_data_statistics": "albert_tf.data.statistics",
    "format_statistics": "albert_tf.data.statistics",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
