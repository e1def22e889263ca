r"""Prints statistics of pretraining TFRecords (ours or the original script's).

    albert-tf data-stats --input_file='/tmp/pretrain/part-*' \
        --spm_model_file=/tmp/spm.model --show_records=3

With --spm_model_file it also measures the masked whole-word units in characters, and
--show_records prints the first records as text with each masked unit in ⟦ ⟧. The build's
manifest beside the records (when there) says how the units were made (--word_segmenter).
"""

from __future__ import annotations

import json

import sentencepiece as spm
from absl import flags

from albert_tf import cli
from albert_tf.data.word_units import piece_characters
from albert_tf.errors import UserError
from albert_tf.file_patterns import expand_file_patterns, without_build_manifests
from albert_tf.tokenization.model_proto import MASK_ID, load_albert_model_proto

FLAGS = flags.FLAGS
flags.DEFINE_string("input_file", None, "TFRecord files: comma-separated globs.")
flags.DEFINE_string("spm_model_file", None, "SentencePiece model, for the [MASK] id.")
flags.DEFINE_integer("mask_id", 4, "[MASK] id when no --spm_model_file is given.")
flags.DEFINE_bool("json", False, "Print JSON instead of a table.")
flags.DEFINE_integer(
    "show_records",
    0,
    "Also print the first N records as text, masked units in ⟦ ⟧ (needs --spm_model_file).",
)


def main(argv):
    del argv
    from albert_tf.inputs.statistics import (  # Loads TensorFlow.
        build_manifest_statistics,
        format_statistics,
        masked_record_lines,
        pretraining_data_statistics,
    )

    mask_id, processor, characters = FLAGS.mask_id, None, None
    if FLAGS.spm_model_file:
        # Checks the ALBERT id layout.
        processor = spm.SentencePieceProcessor(
            model_proto=load_albert_model_proto(FLAGS.spm_model_file)
        )
        mask_id, characters = MASK_ID, piece_characters(processor)
    elif FLAGS.show_records:
        raise UserError("--show_records needs the tokenizer", fix="pass --spm_model_file")
    paths = without_build_manifests(expand_file_patterns(FLAGS.input_file))
    stats = pretraining_data_statistics(paths, mask_id=mask_id, piece_characters=characters)
    stats["build"] = build_manifest_statistics(paths)
    print(json.dumps(stats, indent=2, default=str) if FLAGS.json else format_statistics(stats))
    if FLAGS.show_records:
        print(f"first {FLAGS.show_records} records of {paths[0]} (masked units in ⟦ ⟧):")
        for line in masked_record_lines(paths[0], processor, FLAGS.show_records):
            print(line)


def run() -> None:
    """`albert-tf data-stats`: parses `sys.argv` and runs `main`, then exits."""
    flags.mark_flags_as_required(["input_file"])
    cli.run(main)


if __name__ == "__main__":
    run()
