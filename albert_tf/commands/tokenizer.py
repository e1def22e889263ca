r"""Trains an ALBERT SentencePiece model (unigram, original id layout) on normalized text.

Example:
    albert-tf tokenizer --input_files='data/*.txt' --model_prefix=out/30k-clean \
        --vocab_size=30000

Chinese or Japanese text (thousands of distinct characters; see docs/chinese.md):
    albert-tf tokenizer --input_files=zh/train.txt --model_prefix=out/zh8k \
        --vocab_size=8000 --character_coverage=0.9995
"""

from __future__ import annotations

from absl import flags

from albert_tf import cli
from albert_tf.tokenization.train import train_sentencepiece

flags.DEFINE_string("input_files", None, "Comma-separated globs of text files.")
flags.DEFINE_string("model_prefix", None, "Output path without extension (.model/.vocab added).")
flags.DEFINE_integer("vocab_size", 30000, "Number of pieces, special tokens included.")
flags.DEFINE_bool("do_lower_case", True, "Lowercase while normalizing (match the tokenizer).")
flags.DEFINE_integer("sample_size", 10_000_000, "Train on at most this many lines (0: all).")
flags.DEFINE_integer("seed", 12345, "Seed of the line sample and of SentencePiece.")
flags.DEFINE_float(
    "character_coverage",
    0.99995,
    "Share of the text's characters the vocabulary covers (the rest: <unk>); 0.9995 for "
    "Chinese/Japanese, SentencePiece's advice for large character sets.",
)
flags.mark_flags_as_required(["input_files", "model_prefix"])


def main(argv: list[str]) -> None:
    del argv
    values = flags.FLAGS
    model_file = train_sentencepiece(
        input_files=[values.input_files],
        model_prefix=values.model_prefix,
        vocab_size=values.vocab_size,
        do_lower_case=values.do_lower_case,
        sample_size=values.sample_size or None,
        seed=values.seed,
        character_coverage=values.character_coverage,
    )
    vocab_file = model_file[: -len(".model")] + ".vocab"
    print(f"Wrote {model_file} and {vocab_file}")


if __name__ == "__main__":
    cli.run(main)
