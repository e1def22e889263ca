r"""Exports a trained ALBERT in a serving or sharing format, chosen with --format.

Formats (the table is albert_tf/export_formats.py; `--format`'s help lists them):
  saved_model (default)  one SavedModel with the signatures serving_default, encode_text,
                         encode_text_pair and, from a training checkpoint (or a pretrainer
                         `.keras`), fill_mask, plus a Keras bundle; of a fine-tuning run, its
                         family's SavedModel (e.g. classify_text), as `--export_saved_model`
                         writes it. See albert_tf/export/saved_model.py.
  tfhub                  the TF Hub / Kaggle Models pair, `preprocessor/` and `encoder/`
                         (trainable, with `mlm` when the model has the masked-LM head), for
                         `hub.KerasLayer`. See albert_tf/export/tfhub/.
  keras_hub              a keras-hub preset (AlbertBackbone, or AlbertTextClassifier of a
                         classification run): what `albert-tf convert --to=keras_hub` writes.
  litert                 LiteRT (TFLite) files for phones: ids or text in, float32 / float16 /
                         int8, fixed --seq_length and each of --batch_sizes (also `albert-tf
                         export-litert`). See docs/litert.md.
  onnx                   ONNX files for ONNX Runtime and OpenVINO on CPUs (fused operators,
                         float32 and int8, ids in; `pip install '.[onnx]'`). See
                         albert_tf/export/onnx/ and docs/serving.md.

--checkpoint may be a fine-tuning output directory or a converted task model (`albert-tf
convert --to=albert_tf` of a Hugging Face or TF1 task model), an encoder bundle or export, a
`.keras` file, or a pretraining workdir; with --checkpoint_format=hf or tf1, a Hugging Face
directory or an original TF1 checkpoint (converted on the fly; every format but saved_model).

Every SavedModel carries TF Serving warm-up records (docs/serving.md).

Examples:
    albert-tf export --checkpoint=/tmp/pretrain_workdir \
        --albert_config_file=/tmp/pretrain_workdir/albert_config.json \
        --spm_model_file=out/30k-clean.model --export_dir=/tmp/albert_export --seq_length=128
    albert-tf export --format=tfhub --checkpoint=/tmp/sst2_run \
        --export_dir=/tmp/albert_hub
    albert-tf export --format=tfhub --checkpoint_format=hf \
        --checkpoint=albert_base_hf --spm_model_file=albert_base_hf/spiece.model \
        --export_dir=/tmp/albert_base_hub
    albert-tf export --format=keras_hub --checkpoint=/tmp/sst2_run --export_dir=/tmp/sst2_preset
    albert-tf export --format=litert --checkpoint=/tmp/sst2_run --export_dir=/tmp/sst2_litert \
        --batch_sizes=1,8 --quantizations=int8 --inputs=ids
    albert-tf export --format=onnx --checkpoint=/tmp/converted_classifier \
        --export_dir=/tmp/classifier_onnx
"""

from __future__ import annotations

from absl import flags

from albert_tf import cli
from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.export_formats import (
    ExportOptions,
    ExportRequest,
    format_help,
    format_named,
    format_names,
)
from albert_tf.runtime.runtime import RuntimeOptions

flags.DEFINE_enum("format", format_names()[0], format_names(), format_help())
flags.DEFINE_string(
    "checkpoint",
    None,
    "What to export: a fine-tuning output directory or converted task model, an encoder bundle "
    "or export, a .keras encoder/pretrainer, or a training checkpoint (pretraining workdir or "
    "ckpt-N prefix).",
)
flags.DEFINE_enum(
    "checkpoint_format",
    "albert_tf",
    ["albert_tf", "hf", "tf1"],
    "Format of --checkpoint: albert_tf's own, a Hugging Face directory, an original TF1 "
    "checkpoint (converted on the fly, see albert-tf convert).",
)
flags.DEFINE_string(
    "albert_config_file",
    None,
    "albert_config.json or a preset name, e.g. albert_base (required for a training checkpoint "
    "unless one is beside it).",
)
flags.DEFINE_string(
    "spm_model_file",
    None,
    "SentencePiece .model the model was trained with (required with --format=saved_model of a "
    "training checkpoint; else default: the one that came with the model).",
)
flags.DEFINE_string("export_dir", None, "Directory to create.")
flags.DEFINE_bool(
    "do_lower_case",
    True,
    "Lowercase while normalizing, as in training (default: the casing that came with the "
    "model; lowercase for saved_model of a training checkpoint and for keras_hub).",
)
flags.DEFINE_bool("overwrite", False, "Replace an existing --export_dir.")
define_flags(ExportOptions)  # Per format: --seq_length, --quantizations, --batch_sizes, ...
define_flags(RuntimeOptions)  # The speed-only forms of --format=saved_model's signatures.
flags.mark_flags_as_required(["checkpoint", "export_dir"])


def request_from_flags(values: flags.FlagValues) -> ExportRequest:
    """The `ExportRequest` of the parsed flags (an unset --do_lower_case: the source's)."""
    return ExportRequest(
        checkpoint=values.checkpoint,
        export_dir=values.export_dir,
        runtime=config_from_flags(RuntimeOptions, values).resolve(),
        checkpoint_format=values.checkpoint_format,
        albert_config_file=values.albert_config_file,
        spm_model_file=values.spm_model_file,
        do_lower_case=values.do_lower_case if values["do_lower_case"].present else None,
        overwrite=values.overwrite,
        options=config_from_flags(ExportOptions, values),
    )


def main(argv: list[str]) -> None:
    del argv
    values = flags.FLAGS
    export_dir = format_named(values.format).export(request_from_flags(values))
    print(f"Exported {export_dir}")


def run() -> None:
    """`albert-tf export`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
