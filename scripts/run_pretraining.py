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

import json

from absl import flags, logging

from albert_tf import cli  # first: quiets TensorFlow's C++ logs before it loads
from albert_tf.training.optimizers import OPTIMIZER_NAMES
from albert_tf.training.precision import PRECISIONS
from albert_tf.training.pretrain import train_and_evaluate
from albert_tf.training.pretrain_config import PretrainConfig
from albert_tf.training.strategy import STRATEGIES

_DEFAULTS = PretrainConfig.__dataclass_fields__

flags.DEFINE_string("input_file", "", "TFRecord glob patterns for training, comma-separated.")
flags.DEFINE_string("eval_file", "", "TFRecord glob patterns for evaluation, comma-separated.")
flags.DEFINE_string("output_dir", None, "Checkpoints, summaries and the final encoder go here.")
flags.DEFINE_string("albert_config_file", None, "The model's albert_config.json.")
flags.DEFINE_string(
    "init_checkpoint",
    "",
    "Start from: a pretraining checkpoint (dir or prefix; encoder and heads) or an "
    "encoder.keras file (encoder only). Ignored when output_dir already has a checkpoint.",
)
flags.DEFINE_bool("do_train", True, "Train.")
flags.DEFINE_bool("do_eval", False, "Evaluate at every checkpoint and at the end; keep best/.")
flags.DEFINE_integer("train_batch_size", 4096, "Global examples per optimizer update.")
flags.DEFINE_integer("eval_batch_size", 64, "Global examples per eval step.")
flags.DEFINE_integer("max_seq_length", 512, "Sequence length of the records.")
flags.DEFINE_integer("max_predictions_per_seq", 20, "Masked positions per record.")
flags.DEFINE_enum("optimizer", "lamb", list(OPTIMIZER_NAMES), "Optimizer.")
flags.DEFINE_float("learning_rate", 0.00176, "Peak learning rate.")
flags.DEFINE_integer("num_train_steps", 125_000, "Optimizer updates.")
flags.DEFINE_integer("num_warmup_steps", 3125, "Linear warmup steps.")
flags.DEFINE_integer("save_checkpoints_steps", 5000, "Steps between checkpoints.")
flags.DEFINE_integer("keep_checkpoint_max", 5, "Checkpoints kept.")
flags.DEFINE_integer("max_eval_steps", 100, "Eval batches at most.")
flags.DEFINE_integer("log_every_steps", 100, "Steps between log lines and summaries.")
flags.DEFINE_enum("strategy", "one_device", list(STRATEGIES), "Distribution strategy.")
flags.DEFINE_string("tpu", "", "TPU name or grpc:// address (--strategy=tpu).")
flags.DEFINE_enum(
    "precision",
    "auto",
    list(PRECISIONS),
    "Compute precision; auto = mixed_bfloat16 on TPU, Ampere+ GPUs and AMX CPUs, else float32.",
)
flags.DEFINE_bool("jit_compile", False, "Compile the train step with XLA.")
flags.DEFINE_integer("steps_per_execution", 1, "Train steps per tf.function call.")
flags.DEFINE_integer(
    "gradient_accumulation_steps", 1, "Micro-batches per update (same math, less memory)."
)
flags.DEFINE_integer("seed", 12345, "Seeds the initial weights and the data order.")
flags.DEFINE_bool(
    "dynamic_masking",
    False,
    "Re-draw the whole-word n-gram masks each time a training record is read (needs "
    "token_boundary in the records).",
)
flags.DEFINE_float(
    "masked_lm_prob", 0.15, "With --dynamic_masking: share of the pieces to mask (then capped)."
)
flags.DEFINE_integer("ngram", 3, "With --dynamic_masking: longest masked n-gram, in words.")


def main(argv: list[str]) -> None:
    del argv
    values = {name: flags.FLAGS[name].value for name in _DEFAULTS if name in flags.FLAGS}
    config = PretrainConfig(**values)
    metrics = train_and_evaluate(config, flags.FLAGS.output_dir)
    logging.info("Final metrics: %s", json.dumps(metrics, indent=2, sort_keys=True))


if __name__ == "__main__":
    flags.mark_flags_as_required(["output_dir", "albert_config_file"])
    cli.run(main)
