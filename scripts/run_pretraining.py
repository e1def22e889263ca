"""Pretrains ALBERT (MLM + SOP) on TFRecords; rerunning the same command resumes.

Flags follow the original `run_pretraining.py`. Example (tiny model, CPU):

    python scripts/run_pretraining.py \\
        --input_file=out/train-*.tfrecord --eval_file=out/eval-*.tfrecord \\
        --output_dir=/tmp/albert_pretrain --albert_config_file=albert_config.json \\
        --train_batch_size=32 --max_seq_length=128 --max_predictions_per_seq=20 \\
        --num_train_steps=1000 --num_warmup_steps=100 --learning_rate=0.00176 \\
        --do_train --do_eval
"""

from __future__ import annotations

import dataclasses
import json

from absl import flags, logging

from albert_tf import cli  # first: quiets TensorFlow's C++ logs before it loads
from albert_tf.errors import UserError
from albert_tf.training.optimizers import OPTIMIZER_NAMES
from albert_tf.training.precision import AUTO_PRECISION_HELP, PRECISIONS
from albert_tf.training.pretrain import train_and_evaluate
from albert_tf.training.pretrain_config import PretrainConfig
from albert_tf.training.strategy import STRATEGIES

# Every flag's default is the PretrainConfig field's, so the two cannot drift.
_DEFAULTS = {field.name: field.default for field in dataclasses.fields(PretrainConfig)}
_HELP = {
    "input_file": "TFRecord glob patterns for training, comma-separated.",
    "albert_config_file": "The model's albert_config.json, or a preset name (e.g. albert_base).",
    "eval_file": "TFRecord glob patterns for evaluation, comma-separated.",
    "init_checkpoint": (
        "Start from: a pretraining checkpoint (dir or prefix; encoder and heads) or an "
        "encoder.keras file (encoder only). Ignored when output_dir already has a checkpoint."
    ),
    "do_train": "Train.",
    "do_eval": "Evaluate at every checkpoint and at the end; keep best/.",
    "train_batch_size": "Global examples per optimizer update.",
    "eval_batch_size": "Global examples per eval step.",
    "max_seq_length": "Sequence length of the records.",
    "max_predictions_per_seq": "Masked positions per record.",
    "optimizer": "Optimizer.",
    "learning_rate": "Peak learning rate.",
    "num_train_steps": "Optimizer updates.",
    "num_warmup_steps": "Linear warmup steps.",
    "weight_decay": "Decoupled weight decay (not on LayerNorm and bias).",
    "clip_norm": "Global gradient norm clip.",
    "save_checkpoints_steps": "Steps between checkpoints.",
    "keep_checkpoint_max": "Checkpoints kept.",
    "max_eval_steps": "Eval batches at most.",
    "log_every_steps": "Steps between log lines and summaries.",
    "strategy": "Distribution strategy.",
    "tpu": "TPU name or grpc:// address (--strategy=tpu).",
    "precision": f"Compute precision; {AUTO_PRECISION_HELP}.",
    "jit_compile": "Compile the train step with XLA.",
    "steps_per_execution": "Train steps per tf.function call.",
    "gradient_accumulation_steps": "Micro-batches per update (same math, less memory).",
    "seed": "Seeds the initial weights and the data order.",
    "shuffle_buffer_size": "Training records in the shuffle buffer.",
    "dynamic_masking": (
        "Re-draw the whole-word n-gram masks each time a training record is read (needs "
        "token_boundary in the records)."
    ),
    "masked_lm_prob": "With --dynamic_masking: share of the pieces to mask (then capped).",
    "ngram": "With --dynamic_masking: longest masked n-gram, in words.",
    "sentence_order_loss_weight": (
        "Weight of the sentence-order (or NSP) loss; 0 trains MLM only (the head stays untrained)."
    ),
}
_ENUMS = {"optimizer": OPTIMIZER_NAMES, "strategy": STRATEGIES, "precision": PRECISIONS}


def _define_flags() -> None:
    """One flag per PretrainConfig field, typed and defaulted by the field."""
    for name, default in _DEFAULTS.items():
        if name in _ENUMS:
            flags.DEFINE_enum(name, default, list(_ENUMS[name]), _HELP[name])
        elif isinstance(default, bool):
            flags.DEFINE_bool(name, default, _HELP[name])
        elif isinstance(default, int):
            flags.DEFINE_integer(name, default, _HELP[name])
        elif isinstance(default, float):
            flags.DEFINE_float(name, default, _HELP[name])
        else:
            flags.DEFINE_string(name, default, _HELP[name])
    flags.DEFINE_string("output_dir", None, "Checkpoints, summaries and the final encoder go here.")


_define_flags()


def config_from_flags(values: flags.FlagValues) -> PretrainConfig:
    """The `PretrainConfig` the flags describe; a bad combination is a `UserError`."""
    try:
        return PretrainConfig(**{name: values[name].value for name in _DEFAULTS})
    except ValueError as error:
        raise UserError(str(error), where="flags", fix="see run_pretraining.py --help") from error


def main(argv: list[str]) -> None:
    del argv
    metrics = train_and_evaluate(config_from_flags(flags.FLAGS), flags.FLAGS.output_dir)
    logging.info("Final metrics: %s", json.dumps(metrics, indent=2, sort_keys=True))


if __name__ == "__main__":
    flags.mark_flags_as_required(["output_dir"])
    cli.run(main)
