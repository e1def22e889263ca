r"""Exports a trained ALBERT as SavedModels that tokenize in the graph.

--format=saved_model (default): one SavedModel with the signatures serving_default, encode_text,
encode_text_pair and, from a training checkpoint (or a pretrainer `.keras`), fill_mask, plus a
Keras bundle. See albert_tf/export/saved_model.py.

--format=tfhub: the TF Hub / Kaggle Models pair, `preprocessor/` and `encoder/` (trainable,
with `mlm` when the model has the masked-LM head), for `hub.KerasLayer`. --checkpoint may also
be a fine-tuning output directory (its encoder), an encoder bundle, or, with
--checkpoint_format=hf or tf1, a Hugging Face directory or an original TF1 checkpoint
(converted on the fly). See albert_tf/export/tfhub.py.

--format=onnx: ONNX files for ONNX Runtime and OpenVINO on CPUs (fused operators, float32 and
int8, ids in; `pip install '.[onnx]'`), from any source: a fine-tuning run or converted task
model (its family's outputs and labels), an encoder bundle, a pretraining workdir, a .keras
file, or a Hugging Face / TF1 checkpoint. See albert_tf/export/onnx/ and docs/serving.md.

--checkpoint may be a fine-tuning output directory or a converted task model (`albert-tf
convert --to=albert_tf` of a Hugging Face or TF1 task model) with every format: saved_model
then writes the family's SavedModel (e.g. classify_text), as `--export_saved_model` does.

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
    albert-tf export --format=onnx --checkpoint=/tmp/converted_classifier \
        --export_dir=/tmp/classifier_onnx
"""

from __future__ import annotations

import os

from absl import flags

from albert_tf import cli
from albert_tf.atomic_files import refuse_existing
from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.errors import UserError
from albert_tf.runtime.runtime import RuntimeOptions

flags.DEFINE_enum(
    "format",
    "saved_model",
    ["saved_model", "tfhub", "onnx"],
    "saved_model: one SavedModel with text signatures; tfhub: TF Hub preprocessor + encoder; "
    "onnx: ONNX Runtime / OpenVINO files (ids in).",
)
flags.DEFINE_list("quantizations", ["float32", "int8"], "--format=onnx: the files to write.")
flags.DEFINE_string(
    "checkpoint",
    None,
    "Training checkpoint (pretraining workdir or ckpt-N prefix) or a .keras encoder/pretrainer; "
    "with --format=tfhub also a fine-tuning output directory or an encoder bundle.",
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
    "unless one is beside it with --format=tfhub).",
)
flags.DEFINE_string(
    "spm_model_file",
    None,
    "SentencePiece .model the model was trained with (--format=tfhub: default, the one that "
    "came with the model).",
)
flags.DEFINE_string("export_dir", None, "Directory to create.")
flags.DEFINE_integer(
    "seq_length",
    None,
    "Packed sequence length of the text signatures (default 128, or the model's "
    "max_position_embeddings when smaller with --format=tfhub).",
)
flags.DEFINE_bool(
    "do_lower_case",
    True,
    "Lowercase while normalizing (as in training; tfhub: default, the "
    "casing that came with the model).",
)
flags.DEFINE_integer("top_k", 5, "Candidates per [MASK] in the fill_mask signature.")
flags.DEFINE_bool("overwrite", False, "Replace an existing --export_dir.")
define_flags(RuntimeOptions)  # The speed-only forms of --format=saved_model's signatures.
flags.mark_flags_as_required(["checkpoint", "export_dir"])


def main(argv: list[str]) -> None:
    del argv
    values = flags.FLAGS
    casing = values.do_lower_case if values["do_lower_case"].present else None
    if values.format == "onnx":
        export_dir = export_onnx_command(values, casing)
    elif values.format == "saved_model" and export_task_saved_model(values):
        export_dir = values.export_dir
    elif values.format == "tfhub":
        from albert_tf.convert.convert import load_model
        from albert_tf.export.tfhub import export_tfhub

        source = values.checkpoint
        if values.checkpoint_format != "albert_tf":
            source = load_model(values.checkpoint_format, source, values.albert_config_file)
        export_dir = export_tfhub(
            values.export_dir,
            source,
            spm_model_file=values.spm_model_file,
            albert_config=values.albert_config_file,
            seq_length=values.seq_length,
            do_lower_case=casing,
            overwrite=values.overwrite,
        )
    else:
        if values.checkpoint_format != "albert_tf":
            raise UserError(
                f"--checkpoint_format={values.checkpoint_format} needs --format=tfhub; for "
                "--format=saved_model convert it first (albert-tf convert "
                "--to=albert_tf)."
            )
        if not values.spm_model_file:
            raise UserError("--spm_model_file is required with --format=saved_model.")
        from albert_tf.export.saved_model import export_saved_model

        export_dir = export_saved_model(
            values.export_dir,
            values.checkpoint,
            values.spm_model_file,
            albert_config=values.albert_config_file,
            seq_length=values.seq_length or 128,
            do_lower_case=values.do_lower_case,
            top_k=values.top_k,
            overwrite=values.overwrite,
            runtime=config_from_flags(RuntimeOptions).resolve(),
        )
    print(f"Exported {export_dir}")


def export_onnx_command(values, do_lower_case: bool | None) -> str:
    """`albert-tf export --format=onnx`: the source of `--checkpoint` as ONNX files."""
    from albert_tf.export.onnx.onnx_export import check_quantizations, export_onnx
    from albert_tf.finetune.export_sources import load_export_source

    check_quantizations(values.quantizations)  # Before the (slow) load.
    refuse_existing(os.path.abspath(values.export_dir), values.overwrite)
    source = load_export_source(
        values.checkpoint,
        values.spm_model_file,
        values.albert_config_file,
        values.checkpoint_format,
        do_lower_case,
    )
    return export_onnx(
        values.export_dir, source, quantizations=values.quantizations, overwrite=values.overwrite
    )


def export_task_saved_model(values) -> bool:
    """`albert-tf export --format=saved_model` of a fine-tuning run or converted task model:
    its family's SavedModel (True); False for any other `--checkpoint`."""
    from albert_tf.export.finetuned_run import is_finetuned_run

    if values.checkpoint_format != "albert_tf" or not is_finetuned_run(values.checkpoint):
        return False
    # The run's task.json names its family; the driver imports it from the families' table.
    from albert_tf.finetune.driver import export_finished_run

    runtime = config_from_flags(RuntimeOptions).resolve()
    export_finished_run(values.checkpoint, values.export_dir, values.overwrite, runtime=runtime)
    return True


def run() -> None:
    """`albert-tf export`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
