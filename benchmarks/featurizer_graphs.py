"""Size and cost of the in-graph featurizers: traced ops, trace seconds, ms per batch.

Every trace of a featurizer (each `tf.data` pipeline of a run, each SavedModel signature), every
load of an export and every served request pays for the ops it holds. For the tokenizer, the
encoder's text features (one and two segments), the multiple-choice layout, the tagging windows
and the span QA piece offsets, prints the op count of one trace, the trace's seconds (median of
`--repeats` fresh traces) and the median ms to featurize a batch of `--batch` SST-2 sentences
(`--calls` calls). Run it at two commits to compare them:

    python benchmarks/featurizer_graphs.py
    git stash && python benchmarks/featurizer_graphs.py; git stash pop   # e.g. before a change
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import tensorflow as tf

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)

from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures  # noqa: E402
from albert_tf.finetune.tagging.word_pieces import WordPieceAligner  # noqa: E402
from albert_tf.tokenization.piece_offsets import encode_with_offsets_tf  # noqa: E402
from albert_tf.tokenization.text_features import AlbertTextFeatures  # noqa: E402
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer  # noqa: E402
from albert_tf.tokenization.train import train_sentencepiece  # noqa: E402

SST2_DEV = os.path.join(REPO_ROOT, "..", "shared", "data", "glue", "SST-2", "dev.tsv")
SAMPLE = os.path.join(REPO_ROOT, "data", "sample.txt")
STRING = tf.TensorSpec([None], tf.string)


def featurizers(spm_model: str) -> dict[str, tuple[Callable, list]]:
    """name -> (function of string tensors, their specs)."""
    tokenizer = AlbertTextTokenizer(spm_model)
    features = AlbertTextFeatures(tokenizer, seq_length=128)
    choice = ChoiceFeatures(tokenizer, seq_length=128, max_qa_length=32)
    aligner = WordPieceAligner(tokenizer, seq_length=128)
    return {
        "tokenizer": (lambda text: tokenizer(text).flat_values, [STRING]),
        "text features, 1 segment": (lambda text: features(text), [STRING]),
        "text features, 2 segments": (lambda a, b: features([a, b]), [STRING, STRING]),
        "multiple choice (4 options)": (
            lambda text, question: choice([text, question, tf.stack([question] * 4, axis=1)]),
            [STRING, STRING],
        ),
        "tagging windows": (
            lambda text: aligner(tf.strings.split(text))[0],
            [STRING],
        ),
        "span QA piece offsets": (
            lambda text: encode_with_offsets_tf(text, tokenizer.sentencepiece)[1].flat_values,
            [STRING],
        ),
    }


def measure(function: Callable, specs: list, inputs: list, repeats: int, calls: int):
    traces = []
    for _ in range(repeats):
        start = time.perf_counter()
        concrete = tf.function(function, input_signature=specs).get_concrete_function()
        traces.append(time.perf_counter() - start)
    concrete(*inputs)  # First run: graph optimization.
    seconds = []
    for _ in range(calls):
        start = time.perf_counter()
        concrete(*inputs)
        seconds.append(time.perf_counter() - start)
    ops = len(concrete.graph.get_operations())
    return ops, statistics.median(traces), 1000 * statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        spm_model = train_sentencepiece([SAMPLE], os.path.join(workdir, "spm"), vocab_size=1000)
        lines = open(SST2_DEV, encoding="utf-8").read().splitlines()[1 : args.batch + 1]
        texts = tf.constant([line.split("\t")[0] for line in lines])
        print(f"{'featurizer':30s} {'ops':>6s} {'trace s':>8s} {'ms/batch':>9s}")
        for name, (function, specs) in featurizers(spm_model).items():
            inputs = [texts] * len(specs)
            ops, trace, ms = measure(function, specs, inputs, args.repeats, args.calls)
            print(f"{name:30s} {ops:6d} {trace:8.3f} {ms:9.2f}", flush=True)


if __name__ == "__main__":
    main()
