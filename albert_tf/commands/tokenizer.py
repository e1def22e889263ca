r"""Trains an ALBERT SentencePiece model (unigram, original id layout) on normalized text.

With --extend, appends --new_pieces pieces of the domain text --input_files to an existing
model instead, every old piece keeping its id and score (see
albert_tf/tokenization/vocabulary_extension.py), and reports pieces per word before and after.

Examples:
    albert-tf tokenizer --input_files='data/*.txt' --model_prefix=out/30k-clean \
        --vocab_size=30000
    albert-tf tokenizer --extend=30k-clean.model --input_files='bio/*.txt' --new_pieces=2000 \
        --general_files=wiki.txt --model_prefix=out/bio

Chinese or Japanese text (thousands of distinct characters; see docs/chinese.md):
    albert-tf tokenizer --input_files=zh/train.txt --model_prefix=out/zh8k \
        --vocab_size=8000 --character_coverage=0.9995
    one piece per character, for character-level tagging (tag --character_level):
    albert-tf tokenizer --input_files=zh/train.txt --model_prefix=out/zhc5k \
        --vocab_size=5000 --character_coverage=0.9995 --cjk_character_pieces
"""

from __future__ import annotations

from absl import flags

from albert_tf import cli
from albert_tf.errors import UserError
from albert_tf.tokenization.segmentation_report import report_table
from albert_tf.tokenization.train import train_sentencepiece
from albert_tf.tokenization.vocabulary_extension import REPORT_SUFFIX, extend_sentencepiece

flags.DEFINE_string("input_files", None, "Comma-separated globs of text files.")
flags.DEFINE_string("model_prefix", None, "Output path without extension (.model/.vocab added).")
flags.DEFINE_integer("vocab_size", 30000, "Number of pieces, special tokens included.")
flags.DEFINE_bool("do_lower_case", True, "Lowercase while normalizing (match the tokenizer).")
flags.DEFINE_integer("sample_size", 10_000_000, "Train on at most this many lines (0: all).")
flags.DEFINE_integer("seed", 12345, "Seed of the line sample and of SentencePiece.")
flags.DEFINE_string("extend", None, "Existing model to append --new_pieces domain pieces to.")
flags.DEFINE_integer("new_pieces", None, "With --extend: how many pieces to append.")
flags.DEFINE_string(
    "general_files", None, "With --extend: text of the kind the model was trained on (report)."
)
flags.DEFINE_float(
    "character_coverage",
    0.99995,
    "Share of the text's characters the vocabulary covers (the rest: <unk>); 0.9995 for "
    "Chinese/Japanese, SentencePiece's advice for large character sets.",
)
flags.DEFINE_bool(
    "cjk_character_pieces",
    False,
    "Every CJK character (ideographs, kana, CJK punctuation) is a piece of its own, as in "
    "Chinese BERT: pretraining then reads the ids a character-level tagger "
    "(tag --character_level) reads. The vocabulary holds at most the distinct characters "
    "plus the other scripts' pieces (about 5,700 on 3 M Chinese characters).",
)
flags.mark_flags_as_required(["input_files", "model_prefix"])


def main(argv: list[str]) -> None:
    del argv
    values = flags.FLAGS
    if values.extend or values.new_pieces is not None:
        extend(values)
        return
    model_file = train_sentencepiece(
        input_files=[values.input_files],
        model_prefix=values.model_prefix,
        vocab_size=values.vocab_size,
        do_lower_case=values.do_lower_case,
        sample_size=values.sample_size or None,
        seed=values.seed,
        character_coverage=values.character_coverage,
        cjk_character_pieces=values.cjk_character_pieces,
    )
    vocab_file = model_file[: -len(".model")] + ".vocab"
    print(f"Wrote {model_file} and {vocab_file}")


def extend(values: flags.FlagValues) -> None:
    """--extend: the extension and its report."""
    if not (values.extend and values.new_pieces):
        raise UserError("--extend and --new_pieces go together", fix="pass both")
    if values["vocab_size"].present:
        raise UserError(
            "--vocab_size is the size of a new model", fix="with --extend pass --new_pieces"
        )
    extension = extend_sentencepiece(
        values.extend,
        input_files=[values.input_files],
        new_pieces=values.new_pieces,
        model_prefix=values.model_prefix,
        general_files=[values.general_files] if values.general_files else None,
        # The model's casing unless the flag was given (a contradiction is refused).
        do_lower_case=values.do_lower_case if values["do_lower_case"].present else None,
        sample_size=values.sample_size or None,
        seed=values.seed,
    )
    prefix = values.model_prefix
    print(
        f"Wrote {extension.model_file}, {prefix}.vocab and {prefix}{REPORT_SUFFIX}: "
        f"{extension.old_size} + {len(extension.new_pieces)} pieces (new ids from "
        f"{extension.old_size})"
    )
    report = extension.report
    print(report_table({name: report[name] for name in ("domain", "general") if name in report}))


def run() -> None:
    """`albert-tf tokenizer`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main)


if __name__ == "__main__":
    run()
