r"""Exports an encoder or a fine-tuned model as LiteRT (TFLite) files for on-device use.

Variants: ids in (builtin ops only) and text in (SentencePiece + packing inside; the texts must
be normalized first, see docs/litert.md), float32 / float16 / int8 dynamic-range,
fixed --seq_length and each of --batch_sizes. See albert_tf/export/litert_export.py.

Example:
    albert-tf export-litert --source=/tmp/sst2_run --output_dir=/tmp/sst2_litert \
        --seq_length=128 --batch_sizes=1,8
    albert-tf export-litert --source=/tmp/albert_export --output_dir=/tmp/enc_litert \
        --quantizations=int8 --inputs=text
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from absl import flags

from albert_tf import cli
from albert_tf.errors import UserError

if TYPE_CHECKING:
    from albert_tf.export.litert_export import LiteRtSource

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
flags.DEFINE_integer("seq_length", None, "Fixed sequence length (default: fine-tuning's, or 128).")
flags.DEFINE_list("batch_sizes", ["1"], "Fixed batch sizes, one file each.")
flags.DEFINE_list("quantizations", ["float32", "float16", "int8"], "Weight formats.")
flags.DEFINE_list("inputs", ["ids", "text"], "Input variants: ids, text.")
flags.DEFINE_bool("overwrite", False, "Replace an existing --output_dir.")
flags.mark_flags_as_required(["source", "output_dir"])


def load_source(source: str, spm_model_file: str | None, albert_config: str | None) -> LiteRtSource:
    """A finished fine-tuning run's (or converted) task model, or the encoder anything else
    holds (`load_export_source`)."""
    from albert_tf.export.litert_export import litert_source
    from albert_tf.finetune.export_sources import load_export_source

    return litert_source(load_export_source(source, spm_model_file, albert_config))


def main(argv: list[str]) -> None:
    del argv
    from albert_tf.export.litert_export import export_litert

    values = flags.FLAGS
    try:
        batch_sizes = [int(value) for value in values.batch_sizes]
    except ValueError as error:
        raise UserError(str(error), where="--batch_sizes", fix="pass integers, e.g. 1,8") from None
    try:
        source = load_source(values.source, values.spm_model_file, values.albert_config_file)
    except (FileNotFoundError, ValueError) as error:
        raise UserError(str(error), where="--source") from None
    output_dir = export_litert(
        values.output_dir,
        source,
        seq_length=values.seq_length,
        batch_sizes=batch_sizes,
        quantizations=values.quantizations,
        inputs=values.inputs,
        overwrite=values.overwrite,
    )
    print(f"Exported {output_dir}")


def run() -> None:
    """`albert-tf export-litert`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
