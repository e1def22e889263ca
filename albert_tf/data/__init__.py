"""Pretraining data: documents -> SOP instances -> n-gram masks -> TFRecords, without TensorFlow.

The builder's worker processes import this package; no module of it loads TensorFlow. Reading
the records back (the training input pipeline, their statistics) is `albert_tf.inputs`.
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: a worker loads only the modules it runs.
_HOMES = {
    "BuilderOptions": ".builder",
    "InstanceOptions": ".instances",
    "MaskingOptions": ".masking",
    "build_pretraining_data": ".builder",
    "convert_wikitext": ".documents",
    "read_documents": ".documents",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
