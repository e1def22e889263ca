r"""Creates ALBERT pretraining TFRecords (SOP + whole-word n-gram masking) from text.

Flags keep the original script's names and defaults. Example:

    albert-tf data --input_file=data/sample.txt \
        --output_dir=/tmp/pretrain --spm_model_file=/tmp/spm.model \
        --max_seq_length=128 --dupe_factor=1 --num_output_shards=2 --parallelism=2

Chinese (or any text written without spaces): whole-word masking on a segmenter's words
(`--word_segmenter=jieba`, a Python callable `package.module:function`, or
`command:PROGRAM`; default `none`: each CJK character is a word; see docs/chinese.md):

    albert-tf data --input_file=zh/train.txt --output_dir=/tmp/zh \
        --spm_model_file=zh8k.model --max_seq_length=128 --word_segmenter=jieba

The same build as an Apache Beam pipeline (same records; see docs/beam_pretraining_data.md):
`--runner=beam` (the DirectRunner) or a Beam runner name, and Beam's own pipeline
options (written `--name=value`) passed through:

    albert-tf data ... --runner=beam \
        --direct_num_workers=2 --direct_running_mode=multi_processing
"""

from __future__ import annotations

import json
import sys

from absl import flags, logging

from albert_tf import cli
from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
from albert_tf.errors import UserError

FLAGS = flags.FLAGS
define_flags(BuilderOptions)  # One flag per field: its type, default and help.
flags.DEFINE_string("vocab_file", None, "Accepted for compatibility; unused (the model has it).")
flags.DEFINE_string(
    "runner",
    "local",
    "local: this machine (--parallelism processes). beam (= DirectRunner) or a Beam runner "
    "(DirectRunner, PrismRunner, DataflowRunner, FlinkRunner, SparkRunner): the Beam pipeline; "
    "any other --name=value flag is passed to Beam as a pipeline option.",
)

# Beam's pipeline options (e.g. --direct_num_workers=2), split off before absl parses.
_beam_args: list[str] = []


def _split_beam_args(argv: list[str]) -> list[str]:
    """Moves flags this script does not define into `_beam_args`; returns the rest."""
    ours = argv[:1]
    for arg in argv[1:]:
        name = arg.lstrip("-").split("=", 1)[0]
        # absl's help flags are defined only once `app.run` starts (after this split).
        known = name in FLAGS or (name.startswith("no") and name[2:] in FLAGS)
        known = known or cli.is_help_flag(arg)
        (ours if known or not arg.startswith("--") else _beam_args).append(arg)
    return ours


def main(argv):
    del argv
    if FLAGS.vocab_file:
        logging.info("--vocab_file is not needed (the SentencePiece model holds the vocab).")
    options = config_from_flags(BuilderOptions)
    try:
        if FLAGS.runner == "local":
            if _beam_args:
                raise UserError(
                    f"unknown flags {_beam_args}", fix="Beam options need --runner=beam"
                )
            manifest = build_pretraining_data(options, progress_seconds=10.0)
        else:
            from albert_tf.data.beam_builder import build_pretraining_data_beam

            runner = "DirectRunner" if FLAGS.runner == "beam" else FLAGS.runner
            manifest = build_pretraining_data_beam(options, [f"--runner={runner}", *_beam_args])
    except (FileExistsError, FileNotFoundError) as error:
        raise UserError(str(error)) from error
    print(json.dumps(manifest["statistics"], indent=2))


if __name__ == "__main__":
    flags.mark_flags_as_required(["input_file", "spm_model_file"])
    logging.set_verbosity(logging.INFO)
    sys.argv = _split_beam_args(sys.argv)
    cli.run(main)
