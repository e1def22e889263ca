"""Fine-tuning ALBERT, one folder per task family, the shared parts once.

Shared by every task family: `finetune_config.FinetuneConfig` (the common settings),
`flags` (the common absl flags of the `run_*.py` scripts), `pretrained_encoder` (what a run
starts from: bundles, `.keras` files, pretraining checkpoints, converted HF / TF1 models),
`training` (seed, strategy, precision, the optimizer recipe, `fit` with resumable callbacks,
the `output_dir` layout) and `scalar_logger`. Task families: `classification` (GLUE and any
TSV/CSV, sentence or pair, classification or regression), `span_qa` (SQuAD 1.1/2.0),
`multiple_choice` (RACE and generic JSONL/CSV) and `tagging` (token classification:
CoNLL-style / JSONL files, IOB1/IOB2/IOBES, conlleval).
"""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "FinetuneConfig",
    "define_finetune_flags",
    "finetune_config_values",
    "load_finetuning_encoder",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
