"""Exports a trained ALBERT as a SavedModel that tokenizes in the graph, plus a Keras bundle.

Signatures: serving_default, encode_text, encode_text_pair and, from a training checkpoint (or a
pretrainer `.keras`), fill_mask. See albert_tf/export/saved_model.py.

Example:
    python scripts/export_saved_model.py --checkpoint=/tmp/pretrain_workdir \
        --albert_config_file=/tmp/pretrain_workdir/albert_config.json \
        --spm_model_file=out/30k-clean.model --export_dir=/tmp/albert_export --seq_length=128
"""

from __future__ import annotations

from absl import flags

from albert_tf import cli  # first: quiets TensorFlow's C++ logs before it loads
from albert_tf.export.saved_model import export_saved_model

flags.DEFINE_string(
    "checkpoint",
    None,
    "Training checkpoint (pretraining workdir or ckpt-N prefix) or a .keras encoder/pretrainer.",
)
flags.DEFINE_string(
    "albert_config_file",
    None,
    "albert_config.json or a preset name, e.g. albert_base (required for a training checkpoint).",
)
flags.DEFINE_string("spm_model_file", None, "SentencePiece .model the model was trained with.")
flags.DEFINE_string("export_dir", None, "Directory to create.")
flags.DEFINE_integer("seq_length", 128, "Packed sequence length of the text signatures.")
flags.DEFINE_bool("do_lower_case", True, "Lowercase while normalizing (as in training).")
flags.DEFINE_integer("top_k", 5, "Candidates per [MASK] in the fill_mask signature.")
flags.DEFINE_bool("overwrite", False, "Replace an existing --export_dir.")
flags.mark_flags_as_required(["checkpoint", "spm_model_file", "export_dir"])


def main(argv: list[str]) -> None:
    del argv
    values = flags.FLAGS
    export_dir = export_saved_model(
        values.export_dir,
        values.checkpoint,
        values.spm_model_file,
        albert_config=values.albert_config_file,
        seq_length=values.seq_length,
        do_lower_case=values.do_lower_case,
        top_k=values.top_k,
        overwrite=values.overwrite,
    )
    print(f"Exported {export_dir}")


if __name__ == "__main__":
    cli.run(main)
