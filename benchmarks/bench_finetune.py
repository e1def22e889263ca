"""Fine-tuning speed: albert_tf vs keras-hub vs Hugging Face (PyTorch), side by side.

ALBERT-base sentence-pair classification training (2 classes, AdamW, dropout 0.1 on the pooled
output, none in the encoder as in ALBERT v2), batch 32, length 128, the same token ids for every
implementation, in one process:

* `albert_tf`: `AlbertClassifier.fit` as `run_classifier.py` compiles it, with and without XLA,
  in each precision (and the one `--precision=auto` picks on this machine, marked `*`);
* `keras_hub`: `keras_hub.models.AlbertTextClassifier.fit` (backbone of the same shape);
* `hf`: `transformers.AlbertForSequenceClassification`, a plain PyTorch training loop, float32
  and bf16 autocast, and `torch.compile` (`--torch_compile`).

Settings are measured in interleaved rounds (`timing.py`); each figure is the median over rounds
of sequences per second. Then the roofline: the step's matmul work next to the best GEMM of
TensorFlow and of PyTorch on this CPU (`roofline.py`), so that what the goal asks can be read
against what the matmuls allow. Last, the fine-tuning input pipeline alone (raw RTE pairs
through `make_dataset`, tokenized in-graph) is timed and compared with what the best step
consumes.

Illustration (not run; ~10 minutes on 2 CPU cores):
    python benchmarks/bench_finetune.py
    python benchmarks/bench_finetune.py --implementations=albert_tf --rounds=3
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable

import keras
import numpy as np
import tensorflow as tf
from peers import hf_config as peer_hf_config
from peers import keras_hub_backbone
from roofline import GEMM_DTYPES, classifier_step_flops, gemm_gflops, torch_gemm_gflops
from timing import interleaved_seconds, median_rates

from albert_tf.config import AlbertConfig
from albert_tf.finetune.classification.datasets import make_dataset
from albert_tf.finetune.classification.examples import Examples
from albert_tf.models import AlbertClassifier, AlbertEncoder, use_chains
from albert_tf.runtime import Runtime
from albert_tf.tokenization import train_sentencepiece
from albert_tf.tokenization.text_features import AlbertTextFeatures
from albert_tf.training.optimizers import create_optimizer
from albert_tf.training.precision import cpu_precision_choice, resolve_precision

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RTE_TRAIN = os.path.join(REPO_ROOT, "..", "shared", "data", "glue", "RTE", "train.tsv")
Runner = Callable[[], int]  # Runs some training steps, returns the sequences they consumed.


def synthetic_pairs(config: AlbertConfig, batch: int, length: int, seed: int = 0) -> dict:
    """One batch of full-length `[CLS] a [SEP] b [SEP]` ids and binary labels (NumPy)."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(5, config.vocab_size, size=(batch, length))
    ids[:, 0], ids[:, length // 2], ids[:, -1] = 2, 3, 3
    segments = (np.arange(length)[None] > length // 2).repeat(batch, 0)
    return {
        "input_ids": ids.astype(np.int32),
        "segment_ids": segments.astype(np.int32),
        "input_mask": np.ones((batch, length), np.int32),
        "labels": rng.integers(0, 2, size=(batch,)).astype(np.int32),
    }


def constant_batches(features: dict, labels: np.ndarray) -> tf.data.Dataset:
    """The same batch forever, for `fit`, with tf.data's autotuning off.

    Each measurement is a new `fit` call; with autotuning on, a `fit` of one or two steps on a
    2-core machine often ended with a stall that rounded its time up to a multiple of ~5.1 s
    (seen for albert_tf and keras-hub alike, gone with autotuning off, absent inside one long
    `fit`). A constant batch has nothing to tune.
    """
    options = tf.data.Options()
    options.autotune.enabled = False
    return tf.data.Dataset.from_tensors((features, labels)).repeat().with_options(options)


def _adamw(steps: int = 1000) -> keras.optimizers.Optimizer:
    return create_optimizer(
        "adamw", 3e-5, num_train_steps=steps, num_warmup_steps=10, bias_correction=True
    )


class FullGraphClassifier(AlbertClassifier):
    """The control for `--full_graph`: every block at every row (the Functional graph)."""

    def call(self, inputs, training=None, mask=None):
        return super(AlbertClassifier, self).call(inputs, training=training, mask=mask)


def albert_tf_classifier(
    config,
    data,
    precision: str,
    jit_compile: bool,
    model_class=AlbertClassifier,
    runtime: Runtime | None = None,
) -> tuple[keras.Model, dict]:
    """`AlbertClassifier` compiled as `finetune.fitting.compile_for_finetuning` does, with the
    chains of `runtime` (default: this machine's, as the commands run), and its features of
    `data`."""
    keras.utils.set_random_seed(0)
    model = model_class(AlbertEncoder(config, dtype=precision), 2, dtype=precision)
    use_chains(model, (runtime or Runtime.for_machine()).chains)
    model.compile(
        optimizer=_adamw(),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit_compile,
    )
    features = {
        "input_word_ids": data["input_ids"],
        "input_type_ids": data["segment_ids"],
        "input_mask": data["input_mask"],
    }
    return model, features


def keras_hub_classifier(
    config, data, precision: str, jit_compile: bool
) -> tuple[keras.Model, dict]:
    """keras-hub's AlbertTextClassifier (no preprocessor), compiled alike, and its features."""
    import keras_hub

    keras.utils.set_random_seed(0)
    backbone = keras_hub_backbone(config, precision)
    model = keras_hub.models.AlbertTextClassifier(
        backbone, num_classes=2, preprocessor=None, dropout=0.1, dtype=precision
    )
    model.compile(
        optimizer=_adamw(),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit_compile,
    )
    features = {
        "token_ids": data["input_ids"],
        "segment_ids": data["segment_ids"],
        "padding_mask": data["input_mask"].astype(bool),
    }
    return model, features


def fit_runner(model: keras.Model, features: dict, labels: np.ndarray, steps: int) -> Runner:
    """`fit` of `steps` steps on the same batch."""
    dataset = constant_batches(features, labels)

    def run() -> int:
        model.fit(dataset, steps_per_epoch=steps, epochs=1, verbose=0)
        return steps * len(labels)

    return run


def albert_tf_runner(
    config, data, precision: str, jit_compile: bool, steps: int, model_class=AlbertClassifier
) -> Runner:
    """`AlbertClassifier.fit`, compiled as `finetune.fitting.compile_for_finetuning` does."""
    model, features = albert_tf_classifier(config, data, precision, jit_compile, model_class)
    return fit_runner(model, features, data["labels"], steps)


def keras_hub_runner(config, data, precision: str, jit_compile: bool, steps: int) -> Runner:
    """keras-hub's AlbertTextClassifier on the same ids (no preprocessor in the loop)."""
    model, features = keras_hub_classifier(config, data, precision, jit_compile)
    return fit_runner(model, features, data["labels"], steps)


def hf_runner(config, data, precision: str, compiled: bool, steps: int) -> Runner:
    """A plain PyTorch loop over `AlbertForSequenceClassification` (bf16: CPU autocast)."""
    import torch
    import transformers

    torch.manual_seed(0)
    hf_config = peer_hf_config(
        config,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        classifier_dropout_prob=0.1,
        num_labels=2,
    )
    model = transformers.AlbertForSequenceClassification(hf_config).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-5, weight_decay=0.01, eps=1e-6)
    forward = torch.compile(model) if compiled else model
    inputs = {
        "input_ids": torch.from_numpy(data["input_ids"].astype(np.int64)),
        "token_type_ids": torch.from_numpy(data["segment_ids"].astype(np.int64)),
        "attention_mask": torch.from_numpy(data["input_mask"].astype(np.int64)),
        "labels": torch.from_numpy(data["labels"].astype(np.int64)),
    }
    from run_hf_steps import training_step

    step = training_step(
        model, optimizer, forward, inputs, "cpu", autocast=precision == "mixed_bfloat16"
    )

    def run() -> int:
        for _ in range(steps):
            step()
        return steps * len(data["labels"])

    return run


def input_pipeline_examples_per_second(batch: int, length: int) -> tuple[float, float]:
    """Raw RTE pairs -> tokenized, packed, shuffled training batches, examples/s.

    Returns the first epoch's rate (tokenization included: the features are cached as they are
    made) and a later epoch's (from the cache, shuffled), both over a whole epoch.
    """
    import csv

    with open(RTE_TRAIN, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    with tempfile.TemporaryDirectory() as workdir:
        spm = train_sentencepiece(
            [os.path.join(REPO_ROOT, "data", "sample.txt")],
            os.path.join(workdir, "spm"),
            vocab_size=2000,
        )
        examples = Examples(
            texts_a=[row["sentence1"] for row in rows],
            texts_b=[row["sentence2"] for row in rows],
            labels=np.array([row["label"] == "entailment" for row in rows], np.int32),
            ids=[row["index"] for row in rows],
            path=RTE_TRAIN,
        )
        dataset = make_dataset(examples, AlbertTextFeatures(spm, length), batch, training=True)
        iterator = iter(dataset)
        rates = []
        for _ in range(2):
            steps, start = len(examples) // batch, time.perf_counter()
            for _ in range(steps):
                next(iterator)
            rates.append(steps * batch / (time.perf_counter() - start))
        return rates[0], rates[1]


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=2, help="training steps per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved measurements")
    parser.add_argument("--warmup", type=int, default=1, help="untimed measurements first")
    parser.add_argument("--implementations", default="albert_tf,keras_hub,hf")
    parser.add_argument("--precisions", default="float32,mixed_bfloat16")
    parser.add_argument("--xla", default="no,yes", help="albert_tf: comma list of no/yes")
    parser.add_argument("--torch_compile", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--full_graph",
        action="store_true",
        help="also albert_tf with its last block at every row (the control of [CLS]-only)",
    )
    return parser.parse_args()


def _runners(args, config, data) -> dict[str, Runner]:
    implementations = args.implementations.split(",")
    runners: dict[str, Runner] = {}
    for precision in args.precisions.split(","):
        if "albert_tf" in implementations:
            for xla in args.xla.split(","):
                runners[f"albert_tf {precision} xla={xla}"] = albert_tf_runner(
                    config, data, precision, xla == "yes", args.steps
                )
                if args.full_graph:
                    runners[f"albert_tf {precision} xla={xla} full-graph"] = albert_tf_runner(
                        config, data, precision, xla == "yes", args.steps, FullGraphClassifier
                    )
        if "keras_hub" in implementations:
            runners[f"keras_hub {precision} xla=no"] = keras_hub_runner(
                config, data, precision, False, args.steps
            )
        if "hf" in implementations:
            runners[f"hf {precision} eager"] = hf_runner(config, data, precision, False, args.steps)
            if args.torch_compile:
                runners[f"hf {precision} torch.compile"] = hf_runner(
                    config, data, precision, True, args.steps
                )
    return runners


def main() -> None:
    args = _parse_args()
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
    print(f"runtime: {Runtime.for_machine().describe()['forms']}")
    config = AlbertConfig.preset(args.preset, hidden_dropout_prob=0.0)
    data = synthetic_pairs(config, args.batch_size, args.seq_length)
    choice = cpu_precision_choice()
    auto = resolve_precision("auto")
    auto_xla = resolve_precision("auto", jit_compile=True)
    print(f"--precision=auto picks {auto} (without XLA): {choice['reason']}")
    print(f"  with XLA: {cpu_precision_choice(True)['reason']}")
    print(f"{args.preset}, batch {args.batch_size}, length {args.seq_length}, AdamW", flush=True)
    runners = _runners(args, config, data)
    sequences = {name: 0 for name in runners}

    def counted(name: str) -> Callable[[], None]:
        def run() -> None:
            sequences[name] = runners[name]()

        return run

    seconds = interleaved_seconds(
        {name: counted(name) for name in runners}, args.warmup, args.rounds
    )
    rates = median_rates(seconds, sequences)
    print(f"\n{'setting':40s} {'seq/s (median)':>15s} {'best round':>11s}  every round")
    for name, rate in rates.items():
        best = sequences[name] / min(seconds[name])
        picked = {f"albert_tf {auto} xla=no", f"albert_tf {auto_xla} xla=yes"}
        mark = " *" if name in picked else ""
        every = " ".join(f"{sequences[name] / s:.2f}" for s in seconds[name])
        print(f"{name + mark:40s} {rate:15.2f} {best:11.2f}  {every}")
    _print_ratios(rates)
    _print_roofline(rates, config, args)
    consumed = max((r for n, r in rates.items() if n.startswith("albert_tf")), default=0.0)
    if consumed:
        first, cached = input_pipeline_examples_per_second(args.batch_size, args.seq_length)
        print(
            f"\ninput pipeline alone (RTE pairs, in-graph tokenization): first epoch "
            f"{first:.0f} examples/s ({first / consumed:.0f}x the best albert_tf step's "
            f"{consumed:.2f} sequences/s), later epochs {cached:.0f} examples/s "
            f"({cached / consumed:.0f}x); goal 5x"
        )


def _print_ratios(rates: dict[str, float]) -> None:
    best = {}
    for name, rate in rates.items():
        implementation = name.split()[0]
        if rate > best.get(implementation, (0.0, ""))[0]:
            best[implementation] = (rate, name)
    print()
    for implementation, (rate, name) in best.items():
        print(f"best {implementation:10s} {rate:7.2f} seq/s  ({name})")
    peers = [value for key, value in best.items() if key != "albert_tf"]
    if "albert_tf" in best and peers:
        peer_rate, peer_name = max(peers)
        ratio = best["albert_tf"][0] / peer_rate
        print(f"best albert_tf / best peer ({peer_name}): {ratio:.2f}x (goal 1.2x)")


def _print_roofline(rates: dict[str, float], config: AlbertConfig, args) -> None:
    """Each setting's matmul rate next to this CPU's best GEMM, and what the goal needs."""
    seq = args.seq_length
    per_sequence = classifier_step_flops(config, seq, cls_only=False)
    # albert_tf's last block computes [CLS] only: queries, output projection, FFN, attention.
    saved = per_sequence - classifier_step_flops(config, seq)
    print(
        f"\nmatmul work per sequence: {per_sequence / 1e9:.1f} GFLOP (full sequence; albert_tf "
        f"{(per_sequence - saved) / 1e9:.1f}, its last block at [CLS] only)"
    )
    gemm = {}
    for dtype in dict.fromkeys(GEMM_DTYPES.get(p, p) for p in args.precisions.split(",")):
        gemm[f"TensorFlow {dtype}"] = gemm_gflops(args.batch_size * seq, dtype)
        gemm[f"PyTorch {dtype}"] = torch_gemm_gflops(args.batch_size * seq, dtype)
    rows = args.batch_size * seq
    print(f"GEMM [{rows}x768]x[768x3072]: " + ", ".join(f"{k} {v:.0f}" for k, v in gemm.items()))
    peak = max(gemm.values())
    ceiling, ours = peak * 1e9 / per_sequence, peak * 1e9 / (per_sequence - saved)
    print(
        f"at the best GEMM ({peak:.0f} GFLOP/s) a full-sequence step reaches at most "
        f"{ceiling:.2f} seq/s, albert_tf's {ours:.2f}"
    )
    for name, rate in rates.items():
        cls_only = name.startswith("albert_tf") and not name.endswith("full-graph")
        work = per_sequence - (saved if cls_only else 0)
        achieved = rate * work / 1e9
        print(f"  {name:38s} {achieved:5.0f} GFLOP/s ({achieved / peak:.0%} of the best GEMM)")
    peers = [rate for name, rate in rates.items() if not name.startswith("albert_tf")]
    if peers:
        needed = 1.2 * max(peers) * (per_sequence - saved) / 1e9
        print(
            f"1.2x the best peer = {1.2 * max(peers):.2f} seq/s = {needed:.0f} GFLOP/s of "
            f"albert_tf's work ({needed / peak:.0%} of the best GEMM)"
        )


if __name__ == "__main__":
    main()
