r"""Creates ALBERT pretraining TFRecords (SOP + whole-word n-gram masking) from text.

Input (the original format): UTF-8 text, one sentence per line, a blank line between
documents; several files (comma-separated globs) are read in the order they expand to.
`--input_format=wikitext` reads WikiText raw instead (albert_tf/data/documents.py).

Flags keep the original script's names and defaults. Example:

    albert-tf data --input_file=data/sample.txt \
        --output_dir=/tmp/pretrain --spm_model_file=/tmp/spm.model \
        --max_seq_length=128 --dupe_factor=1 --num_output_shards=2 --parallelism=2

Evaluation records in the same step: the last N documents of the input (the end of the last
file, with several files) are left out of the training records and written, once each (dupe
factor 1) in one shard, to --eval_output_dir:

    albert-tf data --input_file=data/sample.txt --output_dir=/tmp/pretrain \
        --spm_model_file=/tmp/spm.model --max_seq_length=128 \
        --eval_documents=4 --eval_output_dir=/tmp/pretrain_eval

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
from albert_tf.data.builder import (
    BuilderOptions,
    build_pretraining_data,
    check_local_output,
    held_out_options,
)
from albert_tf.errors import UserError

FLAGS = flags.FLAGS
# One flag per field: its type, default and help; `part` follows from --eval_output_dir.
define_flags(BuilderOptions, skip=("part",))
flags.DEFINE_string(
    "eval_output_dir", None, "With --eval_documents: where the evaluation records go."
)
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
    eval_options = _eval_options(options)
    try:
        if FLAGS.runner == "local":
            if _beam_args:
                raise UserError(
                    f"unknown flags {_beam_args}", fix="Beam options need --runner=beam"
                )
            if eval_options is not None:
                check_local_output(eval_options)  # Before the training records are written.
            manifest = build_pretraining_data(options, progress_seconds=10.0)
        else:
            from albert_tf.data.beam_builder import build_pretraining_data_beam  # The beam extra.

            runner = "DirectRunner" if FLAGS.runner == "beam" else FLAGS.runner
            manifest = build_pretraining_data_beam(options, [f"--runner={runner}", *_beam_args])
        if eval_options is None:
            print(json.dumps(manifest["statistics"], indent=2))
            return
        logging.info("Now the records of the %d held-out documents.", options.eval_documents)
        eval_manifest = build_pretraining_data(eval_options, progress_seconds=10.0)
    except (FileExistsError, FileNotFoundError) as error:
        raise UserError(str(error)) from error
    statistics = {"train": manifest["statistics"], "eval": eval_manifest["statistics"]}
    print(json.dumps(statistics, indent=2))


def _eval_options(options: BuilderOptions) -> BuilderOptions | None:
    """The evaluation build of --eval_documents and --eval_output_dir (None without)."""
    if not options.eval_documents:
        if FLAGS.eval_output_dir:
            raise UserError(
                "--eval_output_dir without --eval_documents",
                fix="pass --eval_documents=N, the documents to hold out",
            )
        return None
    if FLAGS.runner != "local":  # Before Beam loads (its import logs).
        raise UserError(
            "--eval_documents needs the local builder",
            where=f"--runner={FLAGS.runner}",
            fix="drop --runner, or give the held-out documents a file of their own and build "
            "it separately",
        )
    return held_out_options(options, FLAGS.eval_output_dir)


def run() -> None:
    """`albert-tf data`: parses `sys.argv` and runs `main`, then exits."""
    flags.mark_flags_as_required(["input_file", "spm_model_file"])
    logging.set_verbosity(logging.INFO)
    sys.argv = _split_beam_args(sys.argv)
    cli.run(main)


if __name__ == "__main__":
    run()
