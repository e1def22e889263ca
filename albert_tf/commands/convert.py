r"""Converts ALBERT checkpoints: albert_tf, the original TF1 release, HF, keras-hub.

Formats (see albert_tf/convert/convert.py for the layouts):
  tf1        original `model.ckpt-*` (prefix or directory) + albert_config.json
  hf         Hugging Face directory (config.json, model.safetensors / pytorch_model.bin)
  albert_tf  encoder.keras / pretrainer.keras / a task's model.keras (file or directory)
  keras_hub  keras-hub preset directory (AlbertBackbone, AlbertTextClassifier; needs keras-hub)

The output is a directory, written under a temporary name and renamed at the end;
an existing output is refused without --overwrite.

Examples:
    albert-tf convert --from=tf1 --to=hf \
        --input=albert_base/model.ckpt-best --output=out/albert_base_hf \
        --spm_model_file=albert_base/30k-clean.model
    albert-tf convert --from=hf --to=albert_tf \
        --input=out/albert_base_hf --output=out/albert_base_keras
    # A fine-tuned HF task model -> model.keras + task.json (HF's labels) + spm.model: a
    # finished run every export takes (albert-tf export --checkpoint=out/classifier):
    albert-tf convert --from=hf --to=albert_tf --input=hf_classifier \
        --spm_model_file=hf_classifier/spiece.model --output=out/classifier
    # A finished classification run -> a preset `keras_hub.models.AlbertTextClassifier
    # .from_preset(...)` loads (its spm.model and max_seq_length are taken from the run):
    albert-tf convert --from=albert_tf --to=keras_hub --input=sst2 \
        --output=out/sst2_keras_hub
    # Grown to a vocabulary extended by `albert-tf tokenizer --extend` (new rows from the old
    # pieces that spelled each new piece; the source's spiece.model is checked against it):
    albert-tf convert --from=hf --to=albert_tf --input=albert_base_hf \
        --grow_vocabulary=out/bio.model --output=out/albert_base_bio
"""

from __future__ import annotations

from absl import flags

from albert_tf import cli
from albert_tf.convert.formats import FORMATS

flags.DEFINE_enum("from", None, list(FORMATS), "Format of --input.")
flags.DEFINE_enum("to", None, list(FORMATS), "Format of --output.")
flags.DEFINE_string("input", None, "Input checkpoint: a prefix, file or directory.")
flags.DEFINE_string("output", None, "Output directory (must not exist unless --overwrite).")
flags.DEFINE_string(
    "config",
    None,
    "albert_config.json, a preset name (e.g. albert_base) or HF config.json; default: the "
    "one beside --input.",
)
flags.DEFINE_string(
    "spm_model_file",
    None,
    "SentencePiece model to ship with the output; with --grow_vocabulary, the input's own model "
    "(default: the one that came with it).",
)
flags.DEFINE_string(
    "grow_vocabulary",
    None,
    "An extension of the input's SentencePiece model (albert-tf tokenizer --extend): write the "
    "input grown to its pieces (embedding rows and MLM biases), shipping it.",
)
flags.DEFINE_enum(
    "heads", "auto", ["auto", "yes", "no"], "Convert the MLM/SOP heads: auto = when present."
)
flags.DEFINE_bool("do_lower_case", True, "Lowercasing of the written HF/keras-hub tokenizer.")
flags.DEFINE_integer(
    "seq_length",
    None,
    "keras-hub classifier input length; default: the run's, else positions. --to=albert_tf of "
    "a task model: its task.json max_seq_length (default: the original recipe's).",
)
flags.DEFINE_bool("overwrite", False, "Replace an existing --output.")
flags.mark_flags_as_required(["from", "to", "input", "output"])


def main(argv: list[str]) -> None:
    del argv
    from albert_tf.convert.convert import convert_checkpoint  # Loads TensorFlow.
    from albert_tf.convert.vocabulary_growth import grow_checkpoint

    values = flags.FLAGS
    heads = {"auto": None, "yes": True, "no": False}[values.heads]
    common = dict(
        from_format=values["from"].value,
        input_path=values.input,
        to_format=values.to,
        output_path=values.output,
        config=values.config,
        spm_model_file=values.spm_model_file,
        overwrite=values.overwrite,
        heads=heads,
        seq_length=values.seq_length,
    )
    if values.grow_vocabulary:
        # Left out, the casing is the source's model's (the extension must match it).
        lower = values.do_lower_case if values["do_lower_case"].present else None
        output = grow_checkpoint(
            extended_spm_model_file=values.grow_vocabulary, do_lower_case=lower, **common
        )
        print(f"Wrote {output} ({values['from'].value} -> {values.to}, vocabulary grown)")
        return
    output = convert_checkpoint(do_lower_case=values.do_lower_case, **common)
    print(f"Wrote {output} ({values['from'].value} -> {values.to})")


def run() -> None:
    """`albert-tf convert`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
