r"""Scores the trivial span QA baseline (first n words of the best-overlapping sentence).

`n` is chosen on `--train_file` (best F1 on its answerable questions); each `--predict_file`
is scored officially, with the all-no-answer figures too for v2.0 files.

Example:
    albert-tf span-qa-baseline --train_file=v2.0/train.json \
        --predict_file=v2.0/dev.json,v1.1/xquad.en.json
"""

from __future__ import annotations

import json
import os

from absl import flags

from albert_tf import cli
from albert_tf.finetune.span_qa.baseline import baseline_scores, choose_num_words
from albert_tf.finetune.span_qa.examples import read_squad

FLAGS = flags.FLAGS
flags.DEFINE_string("train_file", None, "SQuAD file on which n is chosen.")
flags.DEFINE_list("predict_file", [], "SQuAD files to score.")
flags.mark_flags_as_required(["train_file"])


def main(argv: list[str]) -> None:
    del argv
    num_words = choose_num_words(read_squad(FLAGS.train_file).examples)
    results: dict = {"num_words": num_words}
    for path in FLAGS.predict_file:
        stem = os.path.splitext(os.path.basename(path))[0]
        scores = baseline_scores(read_squad(path), num_words)
        results.update({f"{stem}/{name}": value for name, value in scores.items()})
    print(json.dumps(results, indent=2))


def run() -> None:
    """`albert-tf span-qa-baseline`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main)


if __name__ == "__main__":
    run()
