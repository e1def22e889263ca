r"""The paper's Figure 2 for any encoders: how far each layer moves its input.

L2 distance and cosine similarity between the input and output of every layer (mean over
real tokens), as CSV and one PNG.

Example:
    albert-tf analyze-layers \
        --encoder_files=exp/cells/e64_all_shared/pretrain,exp/cells/e64_not_shared/pretrain \
        --names=shared,not_shared --input_file='exp/data/sop/eval/*.tfrecord' \
        --max_seq_length=64 --max_predictions_per_seq=10 --output_dir=/tmp/layers
"""

from __future__ import annotations

from absl import flags

from albert_tf import cli

FLAGS = flags.FLAGS
flags.DEFINE_list("encoder_files", None, "encoder.keras files or pretraining output dirs.")
flags.DEFINE_list("names", [], "A name per encoder for the legend (default: the paths).")
flags.DEFINE_string("input_file", None, "Pretraining TFRecords (glob) to run the encoders on.")
flags.DEFINE_integer("max_seq_length", 512, "Length the records were written with.")
flags.DEFINE_integer("max_predictions_per_seq", 20, "Masked positions per record.")
flags.DEFINE_integer("num_records", 256, "Records to average over.")
flags.DEFINE_string("output_dir", None, "Where layer_transitions.{csv,png} go.")
flags.mark_flags_as_required(["encoder_files", "input_file", "output_dir"])


def main(argv: list[str]) -> None:
    del argv
    from albert_tf.experiments.layer_analysis import layer_transitions_csv  # Loads TensorFlow.
    from albert_tf.experiments.layer_report import analyze_encoder_files

    models = analyze_encoder_files(
        FLAGS.encoder_files,
        FLAGS.names,
        FLAGS.input_file,
        FLAGS.max_seq_length,
        FLAGS.max_predictions_per_seq,
        FLAGS.num_records,
        FLAGS.output_dir,
    )
    print(layer_transitions_csv(models), end="")


def run() -> None:
    """`albert-tf analyze-layers`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
