r"""Exports an encoder or a fine-tuned model as LiteRT (TFLite) files for on-device use.

`albert-tf export --format=litert` under its former flag names (--source, --output_dir): the
`litert` entry of albert_tf/export_formats.py, with the same --seq_length, --batch_sizes,
--quantizations and --inputs.

Variants: ids in (builtin ops only) and text in (SentencePiece + packing inside; the texts must
be normalized first, see docs/litert.md), float32 / float16 / int8 dynamic-range,
fixed --seq_length and each of --batch_sizes. See albert_tf/export/litert/export.py.

Example:
    albert-tf export-litert --source=/tmp/sst2_run --output_dir=/tmp/sst2_litert \
        --seq_length=128 --batch_sizes=1,8
    albert-tf export-litert --source=/tmp/albert_export --output_dir=/tmp/enc_litert \
        --quantizations=int8 --inputs=text
"""

from __future__ import annotations

from absl import flags

from albert_tf import cli
from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.export_formats import ExportOptions, ExportRequest, format_named
from albert_tf.runtime.runtime import Runtime

flags.DEFINE_string(
    "source",
    None,
    "A fine-tuning output_dir or a converted task model (model.keras + task.json + spm.model), "
    "an encoder bundle or export directory, an encoder.keras, or a pretraining "
    "workdir/checkpoint.",
)
flags.DEFINE_string("output_dir", None, "Directory to create (.tflite files + litert.json).")
flags.DEFINE_string("spm_model_file", None, "SentencePiece model, when the source has none.")
flags.DEFINE_string("albert_config_file", None, "albert_config.json for a training checkpoint.")
define_flags(ExportOptions, skip=("top_k",))  # --seq_length, --batch_sizes, ... as export's.
flags.DEFINE_bool("overwrite", False, "Replace an existing --output_dir.")
flags.mark_flags_as_required(["source", "output_dir"])


def main(argv: list[str]) -> None:
    del argv
    values = flags.FLAGS
    request = ExportRequest(
        checkpoint=values.source,
        export_dir=values.output_dir,
        runtime=Runtime.plain(),  # LiteRT files have no serving forms.
        albert_config_file=values.albert_config_file,
        spm_model_file=values.spm_model_file,
        overwrite=values.overwrite,
        options=config_from_flags(ExportOptions, values),
    )
    print(f"Exported {format_named('litert').export(request)}")


def run() -> None:
    """`albert-tf export-litert`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
