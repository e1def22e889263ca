r"""Pretrains ALBERT (MLM + SOP) on TFRecords; rerunning the same command resumes.

Flags follow the original `run_pretraining.py`. Example (tiny model, CPU):

    albert-tf pretrain \
        --input_file=out/train-*.tfrecord --eval_file=out/eval-*.tfrecord \
        --output_dir=/tmp/albert_pretrain --albert_config_file=albert_config.json \
        --train_batch_size=32 --max_seq_length=128 --max_predictions_per_seq=20 \
        --num_train_steps=1000 --num_warmup_steps=100 --learning_rate=0.00176 \
        --do_train --do_eval
"""

from __future__ import annotations

import json

from absl import flags, logging

from albert_tf import cli
from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.runtime.runtime import RuntimeOptions
from albert_tf.training.pretrain_config import PretrainConfig

define_flags(PretrainConfig)  # One flag per field: its type, default and help.
define_flags(RuntimeOptions)  # The speed-only forms.
flags.DEFINE_string("output_dir", None, "Checkpoints, summaries and the final encoder go here.")


def main(argv: list[str]) -> None:
    del argv
    from albert_tf.training.pretrain import train_and_evaluate  # Loads TensorFlow.

    runtime = config_from_flags(RuntimeOptions).resolve()
    config = config_from_flags(PretrainConfig)
    metrics = train_and_evaluate(config, flags.FLAGS.output_dir, runtime)
    logging.info("Final metrics: %s", json.dumps(metrics, indent=2, sort_keys=True))


def run() -> None:
    """`albert-tf pretrain`: parses `sys.argv` and runs `main`, then exits."""
    flags.mark_flags_as_required(["output_dir"])
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
