"""Pretraining data: documents -> SOP instances -> n-gram masks -> TFRecords; the input pipeline."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "BuilderOptions": ".builder",
    "InstanceOptions": ".instances",
    "MaskingOptions": ".masking",
    "build_pretraining_data": ".builder",
    "check_records": ".pretrain_input",
    "convert_wikitext": ".documents",
    "format_statistics": ".statistics",
    "pretrain_dataset": ".pretrain_input",
    "pretraining_data_statistics": ".statistics",
    "read_documents": ".documents",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
