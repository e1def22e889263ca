"""Creates ALBERT pretraining TFRecords (SOP + whole-word n-gram masking) from text.

Flags keep the original script's names and defaults. Example:

    python scripts/create_pretraining_data.py --input_file=data/sample.txt \
        --output_dir=/tmp/pretrain --spm_model_file=/tmp/spm.model \
        --max_seq_length=128 --dupe_factor=1 --num_output_shards=2 --parallelism=2

The same build as an Apache Beam pipeline (same records; see README "Pretraining data on
Beam"): `--runner=beam` (the DirectRunner) or a Beam runner name, and Beam's own pipeline
options (written `--name=value`) passed through:

    python scripts/create_pretraining_data.py ... --runner=beam \
        --direct_num_workers=2 --direct_running_mode=multi_processing
"""

from __future__ import annotations

import json
import sys

from absl import flags, logging

from albert_tf import cli  # first: quiets TensorFlow's C++ logs before it loads
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
from albert_tf.data.parallelism import available_cores
from albert_tf.errors import UserError

FLAGS = flags.FLAGS
flags.DEFINE_string("input_file", None, "Input text files: comma-separated globs.")
flags.DEFINE_string("output_file", None, "Output TFRecord files, comma-separated (one per shard).")
flags.DEFINE_string("output_dir", None, "Output directory (shards + manifest.json).")
flags.DEFINE_string("spm_model_file", None, "SentencePiece model (ALBERT id layout).")
flags.DEFINE_string("vocab_file", None, "Accepted for compatibility; unused (the model has it).")
flags.DEFINE_bool("do_lower_case", True, "Lowercase the input (must match the model).")
flags.DEFINE_integer("max_seq_length", 512, "Maximum sequence length.")
flags.DEFINE_integer("max_predictions_per_seq", 20, "Maximum masked LM predictions per sequence.")
flags.DEFINE_float("masked_lm_prob", 0.15, "Masked LM probability.")
flags.DEFINE_float("short_seq_prob", 0.1, "Probability of a shorter target length.")
flags.DEFINE_integer("ngram", 3, "Maximum n-gram length (in words) to mask.")
flags.DEFINE_bool("favor_shorter_ngram", True, "p(n) proportional to 1/n.")
flags.DEFINE_bool("do_whole_word_mask", True, "Mask whole words.")
flags.DEFINE_bool("random_next_sentence", False, "NSP (random B) instead of SOP.")
flags.DEFINE_bool(
    "sop_random_document_fallback",
    False,
    "Original quirk: a one-sentence chunk takes B from a random document (label 1).",
)
flags.DEFINE_integer("dupe_factor", 40, "Passes over the input, with different masks.")
flags.DEFINE_integer("random_seed", 12345, "Seed of every random draw.")
flags.DEFINE_integer("num_output_shards", 1, "Shards under --output_dir.")
flags.DEFINE_integer(
    "parallelism",
    available_cores(),
    "Worker processes; default: the cores this process may use. The output is the same "
    "for every value.",
)
flags.DEFINE_integer(
    "shuffle_buffer_size", 10_000, "Records held for shuffling before writing (all shards)."
)
flags.DEFINE_bool("overwrite", False, "Replace an existing output.")
flags.DEFINE_enum("input_format", "text", ["text", "wikitext"], "Input format.")
flags.DEFINE_enum("on_decode_error", "strict", ["strict", "replace"], "Invalid UTF-8 handling.")
flags.DEFINE_integer(
    "batch_characters", 1_000_000, "Characters per batch of documents (the seeds depend on it)."
)
flags.DEFINE_bool("dedup_documents", False, "Drop exact duplicate documents (first kept).")
flags.DEFINE_bool("dedup_lines", False, "Drop lines seen earlier in the corpus (first kept).")
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
        known = name in FLAGS or (name.startswith("no") and name[2:] in FLAGS)
        (ours if known or not arg.startswith("--") else _beam_args).append(arg)
    return ours


def main(argv):
    del argv
    if FLAGS.vocab_file:
        logging.info("--vocab_file is not needed (the SentencePiece model holds the vocab).")
    options = BuilderOptions(
        input_file=FLAGS.input_file,
        spm_model_file=FLAGS.spm_model_file,
        output_dir=FLAGS.output_dir,
        output_file=FLAGS.output_file,
        do_lower_case=FLAGS.do_lower_case,
        max_seq_length=FLAGS.max_seq_length,
        max_predictions_per_seq=FLAGS.max_predictions_per_seq,
        masked_lm_prob=FLAGS.masked_lm_prob,
        short_seq_prob=FLAGS.short_seq_prob,
        ngram=FLAGS.ngram,
        favor_shorter_ngram=FLAGS.favor_shorter_ngram,
        do_whole_word_mask=FLAGS.do_whole_word_mask,
        random_next_sentence=FLAGS.random_next_sentence,
        sop_random_document_fallback=FLAGS.sop_random_document_fallback,
        dupe_factor=FLAGS.dupe_factor,
        random_seed=FLAGS.random_seed,
        num_output_shards=FLAGS.num_output_shards,
        parallelism=FLAGS.parallelism,
        shuffle_buffer_size=FLAGS.shuffle_buffer_size,
        overwrite=FLAGS.overwrite,
        input_format=FLAGS.input_format,
        on_decode_error=FLAGS.on_decode_error,
        batch_characters=FLAGS.batch_characters,
        dedup_documents=FLAGS.dedup_documents,
        dedup_lines=FLAGS.dedup_lines,
    )
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
