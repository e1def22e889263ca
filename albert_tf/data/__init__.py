"""Pretraining data: documents -> SOP instances -> n-gram masks -> TFRecords; the input pipeline."""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "BuilderOptions",
    "InstanceOptions",
    "MaskingOptions",
    "build_pretraining_data",
    "check_records",
    "convert_wikitext",
    "format_statistics",
    "pretrain_dataset",
    "pretraining_data_statistics",
    "read_documents",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
