"""Pretraining inputs: the builder's TFRecords read back, as training batches and statistics.

`pretrain_input` turns record shards into static-shape batches (sharded per worker, shuffled,
resumable, with general records mixed in), `dynamic_masking` re-draws their masks in the
pipeline, and `statistics` measures a set of records. Every module here imports TensorFlow;
the records are written by `albert_tf.data`, which does not.
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "check_records": ".pretrain_input",
    "format_statistics": ".statistics",
    "pretrain_dataset": ".pretrain_input",
    "pretraining_data_statistics": ".statistics",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
