"""Fine-tuning ALBERT, one folder per task family, the shared parts once.

Shared by every task family: `finetune_config.FinetuneConfig` (the common settings),
`flags` (the common absl flags of the `run_*.py` scripts), `pretrained_encoder` (what a run
starts from: bundles, `.keras` files, pretraining checkpoints, converted HF / TF1 models),
`training` (seed, strategy, precision, the optimizer recipe, `fit` with resumable callbacks,
the `output_dir` layout) and `scalar_logger`. Task families: `classification` (GLUE and any
TSV/CSV, sentence or pair, classification or regression).
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use (see albert_tf/lazy_exports.py).
_EXPORTS = {
    "FinetuneConfig": "albert_tf.finetune.finetune_config",
    "define_finetune_flags": "albert_tf.finetune.flags",
    "finetune_config_values": "albert_tf.finetune.flags",
    "load_finetuning_encoder": "albert_tf.finetune.training",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
