r"""Prints statistics of pretraining TFRecords (ours or the original script's).

    albert-tf data-stats --input_file='/tmp/pretrain/part-*' \
        --spm_model_file=/tmp/spm.model
"""

from __future__ import annotations

import json

from absl import flags

from albert_tf import cli
from albert_tf.data.statistics import format_statistics, pretraining_data_statistics
from albert_tf.file_patterns import expand_file_patterns, without_build_manifests
from albert_tf.tokenization.model_proto import MASK_ID, load_albert_model_proto

FLAGS = flags.FLAGS
flags.DEFINE_string("input_file", None, "TFRecord files: comma-separated globs.")
flags.DEFINE_string("spm_model_file", None, "SentencePiece model, for the [MASK] id.")
flags.DEFINE_integer("mask_id", 4, "[MASK] id when no --spm_model_file is given.")
flags.DEFINE_bool("json", False, "Print JSON instead of a table.")


def main(argv):
    del argv
    mask_id = FLAGS.mask_id
    if FLAGS.spm_model_file:
        load_albert_model_proto(FLAGS.spm_model_file)  # Checks the ALBERT id layout.
        mask_id = MASK_ID
    paths = without_build_manifests(expand_file_patterns(FLAGS.input_file))
    stats = pretraining_data_statistics(paths, mask_id=mask_id)
    print(json.dumps(stats, indent=2, default=str) if FLAGS.json else format_statistics(stats))


if __name__ == "__main__":
    flags.mark_flags_as_required(["input_file"])
    cli.run(main)
