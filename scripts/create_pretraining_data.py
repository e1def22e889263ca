"""Creates ALBERT pretraining TFRecords (SOP + whole-word n-gram masking) from text.

Flags keep the original script's names and defaults. Example:

    python scripts/create_pretraining_data.py --input_file=data/sample.txt \
        --output_dir=/tmp/pretrain --spm_model_file=/tmp/spm.model \
        --max_seq_length=128 --dupe_factor=1 --num_output_shards=2 --parallelism=2
"""

from __future__ import annotations

import json

from absl import flags, logging

from albert_tf import cli  # first: quiets TensorFlow's C++ logs before it loads
from albert_tf.data.builder import BuilderOptions, build_pretraining_data

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
flags.DEFINE_integer("parallelism", 1, "Worker processes.")
flags.DEFINE_integer(
    "shuffle_buffer_size", 10_000, "Records held for shuffling before writing (all shards)."
)
flags.DEFINE_bool("overwrite", False, "Replace an existing output.")
flags.DEFINE_enum("input_format", "text", ["text", "wikitext"], "Input format.")
flags.DEFINE_enum("on_decode_error", "strict", ["strict", "replace"], "Invalid UTF-8 handling.")


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
    )
    manifest = build_pretraining_data(options, progress_seconds=10.0)
    print(json.dumps(manifest["statistics"], indent=2))


if __name__ == "__main__":
    flags.mark_flags_as_required(["input_file", "spm_model_file"])
    logging.set_verbosity(logging.INFO)
    cli.run(main)
