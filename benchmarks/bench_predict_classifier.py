"""Classifier prediction in the fine-tuning scripts: `predict_outputs` vs `model.predict`.

SST-2 dev sentences through `make_dataset` (in-graph tokenization, packed at
`--max_seq_length`), an ALBERT-base classifier (random weights; the speed does not depend on
them), in one process, calls interleaved:

* `predict_outputs`: as `run_classifier` predicts (`albert_tf/finetune/prediction.py`): on a
  CPU, each batch cut to its longest text;
* `model.predict`: the model compiled without XLA, as after training (the control);
* `model.predict XLA`: not compiled, as a predict-only run loads it (Keras's "auto" compiles
  the predict step with XLA).

Every setting reads the same batches, without tf.data's autotuning. Prints examples/s, the
ratios and the largest logit difference.

Illustration (not run; ~6 minutes on 2 CPU cores):
    python benchmarks/bench_predict_classifier.py --examples=320
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import tempfile

import keras
import numpy as np
from timing import interleaved_seconds, median_rates

from albert_tf.config import AlbertConfig
from albert_tf.finetune.classification.datasets import make_dataset
from albert_tf.finetune.classification.examples import read_examples
from albert_tf.finetune.classification.task_specs import get_task
from albert_tf.finetune.prediction import NOTHING_TO_TUNE, cuts_batches, predict_outputs
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.tokenization import train_sentencepiece
from albert_tf.tokenization.text_features import AlbertTextFeatures

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SST2_DEV = os.path.join(os.path.dirname(REPO_ROOT), "shared", "data", "glue", "SST-2", "dev.tsv")


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev_file", default=SST2_DEV)
    parser.add_argument("--examples", type=int, default=320)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--max_seq_length", type=int, default=128)
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args()


def main() -> None:
    args = _parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        _run(args, workdir)


def _run(args: argparse.Namespace, workdir: str) -> None:
    keras.utils.set_random_seed(0)
    examples = read_examples(args.dev_file, get_task("sst-2"))
    n = args.examples
    examples = dataclasses.replace(
        examples, texts_a=examples.texts_a[:n], labels=examples.labels[:n], ids=examples.ids[:n]
    )
    spm = train_sentencepiece(
        [os.path.join(REPO_ROOT, "data", "sample.txt")],
        os.path.join(workdir, "spm"),
        vocab_size=8000,
    )
    config = AlbertConfig.preset(args.preset, vocab_size=8000)
    model = AlbertClassifier(AlbertEncoder(config), 2)
    compiled = AlbertClassifier(AlbertEncoder(config), 2)
    compiled.set_weights(model.get_weights())
    compiled.compile(jit_compile=False)
    dataset = make_dataset(
        examples, AlbertTextFeatures(spm, args.max_seq_length), args.batch_size, with_labels=False
    ).with_options(NOTHING_TO_TUNE)
    runners = {
        "predict_outputs": lambda: predict_outputs(model, dataset),
        "model.predict": lambda: compiled.predict(dataset, verbose=0),
        "model.predict XLA": lambda: model.predict(dataset, verbose=0),
    }
    outputs = {name: run() for name, run in runners.items()}  # Warm-up (and the dataset cache).
    difference = max(np.abs(outputs["predict_outputs"] - o).max() for o in outputs.values())
    seconds = interleaved_seconds(runners, warmup=0, rounds=args.rounds)
    longest = [int(f["input_mask"].numpy().sum(axis=1).max()) for f in dataset]
    print(
        f"\n{args.preset} classifier (random weights), {len(examples.texts_a)} texts of "
        f"{os.path.basename(args.dev_file)}, batch {args.batch_size}, packed at "
        f"{args.max_seq_length}, longest per batch {min(longest)}-{max(longest)}, median of "
        f"{args.rounds} rounds, batches cut: {cuts_batches()}"
    )
    rates = median_rates(seconds, len(examples.texts_a))
    for name, rate in rates.items():
        print(f"{name:20s} {rate:8.1f} examples/s")
    print(
        f"predict_outputs / model.predict {rates['predict_outputs'] / rates['model.predict']:.2f}x,"
        f" / XLA {rates['predict_outputs'] / rates['model.predict XLA']:.2f}x; largest logit "
        f"difference {difference:.1e}"
    )


if __name__ == "__main__":
    main()
