"""Serving a classifier from raw text: albert_tf SavedModel vs keras-hub vs Hugging Face.

Raw strings in, class probabilities out, ALBERT-base shapes (random weights; 2 classes), texts
long enough to fill `--seq_length` pieces, in one process:

* `albert_tf`: `tf.saved_model.load(export)` of the classification family's export
  (`export_task_model` with `classifier_endpoints`, as the fine-tuning driver writes it), the
  `classify_text` signature (SentencePiece and packing inside the graph), per precision of the
  exported model, in the serving forms the commands export with on this machine
  (`Runtime.for_machine()`, printed first);
* `keras_hub`: `AlbertTextClassifier` with its `AlbertTextClassifierPreprocessor`
  (`predict_on_batch` on strings: preprocessor + model);
* `hf`: `transformers.pipeline("text-classification")` over `AlbertForSequenceClassification` and
  the fast tokenizer (float32 and bf16 weights).

Each setting reports batch-1 latency (median and p99 over `--calls` calls, the settings
interleaved call by call) and batch-32 throughput (median of `--rounds` interleaved rounds).
`--inter_op_threads` / `--intra_op_threads` set TensorFlow's thread pools (a process setting,
as a server's flags). With `--processes=N` each implementation instead runs alone in a fresh
process, N times, the implementations taking turns (what a user serving one framework sees:
on a 2-core Xeon, albert_tf's batch-32 throughput read 37-39 seq/s alone and 34-36 next to
PyTorch in one process, while Hugging Face's did not move); the figures are pooled over the N
processes.

Illustration (not run; ~5 minutes on 2 CPU cores):
    python benchmarks/bench_serving.py
    python benchmarks/bench_serving.py --precisions=mixed_bfloat16 --processes=3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import keras
import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the ops the SavedModel uses)
from peers import hf_config as peer_hf_config
from peers import hf_fast_tokenizer, keras_hub_backbone
from timing import interleaved_seconds

from albert_tf.config import AlbertConfig
from albert_tf.export.task_export import export_task_model
from albert_tf.finetune.classification.serving import built_text_features, classifier_endpoints
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.runtime import Runtime
from albert_tf.tokenization import train_sentencepiece
from albert_tf.tokenization.text_features import AlbertTextFeatures
from albert_tf.training.precision import resolve_precision

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
Predict = Callable[[list[str]], object]


def long_texts(count: int, words: int) -> list[str]:
    """`count` different passages of `words` words from the sample corpus."""
    with open(os.path.join(REPO_ROOT, "data", "sample.txt"), encoding="utf-8") as handle:
        corpus = handle.read().split()
    return [" ".join(corpus[i * 7 : i * 7 + words]) for i in range(count)]


def albert_tf_predictor(config, spm_file: str, length: int, precision: str, workdir) -> Predict:
    keras.utils.set_random_seed(0)
    model = AlbertClassifier(AlbertEncoder(config, dtype=precision), 2, dtype=precision)
    features = AlbertTextFeatures(spm_file, length)
    export_dir = export_task_model(
        os.path.join(workdir, f"albert_tf_{precision}"),
        model,
        lambda predict: classifier_endpoints(predict, features, labels=("0", "1")),
        [built_text_features(features, is_pair=False)],
        runtime=Runtime.for_machine(),
    )
    classify = tf.saved_model.load(export_dir).signatures["classify_text"]
    return lambda texts: classify(text_a=tf.constant(texts))["probabilities"].numpy()


def keras_hub_predictor(config, spm_file: str, length: int, precision: str, workdir) -> Predict:
    import keras_hub

    keras.utils.set_random_seed(0)
    backbone = keras_hub_backbone(config, precision)
    preprocessor = keras_hub.models.AlbertTextClassifierPreprocessor(
        keras_hub.models.AlbertTokenizer(proto=spm_file), sequence_length=length
    )
    model = keras_hub.models.AlbertTextClassifier(
        backbone, num_classes=2, preprocessor=preprocessor, activation="softmax", dtype=precision
    )
    return lambda texts: model.predict_on_batch(np.array(texts))


def hf_predictor(config, spm_file: str, length: int, precision: str, workdir) -> Predict:
    import torch
    import transformers

    torch.manual_seed(0)
    tokenizer = hf_fast_tokenizer(spm_file, workdir)
    model = transformers.AlbertForSequenceClassification(
        peer_hf_config(config, num_labels=2)
    ).eval()
    if precision == "mixed_bfloat16":
        model = model.to(torch.bfloat16)
    pipe = transformers.pipeline(
        "text-classification", model=model, tokenizer=tokenizer, device="cpu", top_k=None
    )
    return lambda texts: pipe(texts, batch_size=len(texts), truncation=True, max_length=length)


PREDICTORS = {
    "albert_tf": albert_tf_predictor,
    "keras_hub": keras_hub_predictor,
    "hf": hf_predictor,
}


def batch1_latencies(predictors: dict[str, Predict], texts: list[str], calls: int) -> dict:
    """Milliseconds per call at batch 1, the settings interleaved call by call."""
    for predict in predictors.values():
        predict(texts[:1])  # Warm-up: tracing, kernel selection, caches.
    latencies = {name: [] for name in predictors}
    for call in range(calls):
        text = [texts[call % len(texts)]]
        for name, predict in predictors.items():
            start = time.perf_counter()
            predict(text)
            latencies[name].append(1000 * (time.perf_counter() - start))
    return latencies


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--calls", type=int, default=200, help="batch-1 calls per setting")
    parser.add_argument("--rounds", type=int, default=5, help="batch throughput rounds")
    parser.add_argument("--implementations", default=",".join(PREDICTORS))
    parser.add_argument("--precisions", default="float32,mixed_bfloat16")
    parser.add_argument("--vocab_size", type=int, default=8000, help="pieces of the spm model")
    parser.add_argument(
        "--processes", type=int, default=0, help="N > 0: each implementation alone, N turns"
    )
    parser.add_argument(
        "--inter_op_threads", type=int, default=0, help="TensorFlow's; 0: its default (cores)"
    )
    parser.add_argument(
        "--intra_op_threads", type=int, default=0, help="TensorFlow's; 0: its default (cores)"
    )
    parser.add_argument("--worker_json", default=None, help=argparse.SUPPRESS)
    return parser.parse_args()


# What a worker process needs of the parent's flags (besides its one implementation).
_FORWARDED_FLAGS = (
    "preset",
    "seq_length",
    "batch_size",
    "calls",
    "rounds",
    "precisions",
    "vocab_size",
    "inter_op_threads",
    "intra_op_threads",
)


def isolated_measurements(args) -> tuple[dict, dict]:
    """Latencies and seconds pooled over `args.processes` turns, one process per implementation."""
    latencies, seconds = {}, {}
    implementations = args.implementations.split(",")
    with tempfile.TemporaryDirectory() as workdir:
        for turn in range(args.processes):
            shift = turn % len(implementations)  # Who goes first changes from turn to turn.
            for implementation in implementations[shift:] + implementations[:shift]:
                out = os.path.join(workdir, f"{turn}_{implementation}.json")
                forwarded = [f"--{name}={getattr(args, name)}" for name in _FORWARDED_FLAGS]
                command = [sys.executable, os.path.abspath(__file__), *forwarded]
                command += [f"--implementations={implementation}", f"--worker_json={out}"]
                print(f"turn {turn + 1}/{args.processes}: {implementation}", flush=True)
                subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
                with open(out, encoding="utf-8") as handle:
                    result = json.load(handle)
                for pooled, key in ((latencies, "latencies"), (seconds, "seconds")):
                    for name, values in result[key].items():
                        pooled.setdefault(name, []).extend(values)
    return latencies, seconds


def main() -> None:
    args = _parse_args()
    if args.processes > 0:
        latencies, seconds = isolated_measurements(args)
        args.calls *= args.processes
        args.rounds *= args.processes
        _report(args, latencies, seconds)
        return
    # Process settings, before TensorFlow runs anything (a server's flags, e.g. TF Serving's
    # --tensorflow_inter_op_parallelism).
    tf.config.threading.set_inter_op_parallelism_threads(args.inter_op_threads)
    tf.config.threading.set_intra_op_parallelism_threads(args.intra_op_threads)
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
    print(f"--precision=auto picks {resolve_precision('auto')} on this machine")
    for form, choice in Runtime.for_machine().describe()["forms"].items():
        print(f"runtime: {form} {'on' if choice['on'] else 'off'} ({choice['reason']})")
    texts = long_texts(64, words=2 * args.seq_length)
    with tempfile.TemporaryDirectory() as workdir:
        spm_file = train_sentencepiece(
            [os.path.join(REPO_ROOT, "data", "sample.txt")],
            os.path.join(workdir, "spm"),
            vocab_size=args.vocab_size,
        )
        config = AlbertConfig.preset(args.preset, vocab_size=args.vocab_size)
        predictors = {}
        for implementation in args.implementations.split(","):
            for precision in args.precisions.split(","):
                build = PREDICTORS[implementation]
                predictors[f"{implementation} {precision}"] = build(
                    config, spm_file, args.seq_length, precision, workdir
                )
                print(f"  built {implementation} {precision}", flush=True)
        latencies = batch1_latencies(predictors, texts, args.calls)
        batch = texts[: args.batch_size]
        seconds = interleaved_seconds(
            {name: (lambda p=predict: p(batch)) for name, predict in predictors.items()},
            warmup=1,
            rounds=args.rounds,
        )
    if args.worker_json:
        with open(args.worker_json, "w", encoding="utf-8") as handle:
            json.dump({"latencies": latencies, "seconds": seconds}, handle)
        return
    _report(args, latencies, seconds)


def _report(args, latencies: dict, seconds: dict) -> None:
    print(
        f"\n{args.preset}, length {args.seq_length}: batch-1 latency over {args.calls} calls, "
        f"batch-{args.batch_size} throughput over {args.rounds} rounds"
    )
    print(
        f"{'setting':28s} {'median ms':>10s} {'p99 ms':>8s} {'seq/s @32':>10s}  seq/s every round"
    )
    throughput = {}
    for name in latencies:
        median = statistics.median(latencies[name])
        p99 = float(np.percentile(latencies[name], 99))
        throughput[name] = args.batch_size / statistics.median(seconds[name])
        every = " ".join(f"{args.batch_size / s:.2f}" for s in seconds[name])
        print(f"{name:28s} {median:10.1f} {p99:8.1f} {throughput[name]:10.2f}  {every}")

    def best(values: dict, implementation: str, key) -> tuple[float, str]:
        pairs = [(value, name) for name, value in values.items()]
        return key(pair for pair in pairs if pair[1].startswith(implementation))

    peers = {name.split()[0] for name in latencies} - {"albert_tf"}
    if not peers or not any(name.startswith("albert_tf") for name in latencies):
        return
    median_latency = {name: statistics.median(values) for name, values in latencies.items()}
    ours_latency = best(median_latency, "albert_tf", min)
    ours_rate = best(throughput, "albert_tf", max)
    peer_latency = min(best(median_latency, peer, min) for peer in peers)
    peer_rate = max(best(throughput, peer, max) for peer in peers)
    print(
        f"\nbatch-1 median latency: best albert_tf {ours_latency[0]:.1f} ms ({ours_latency[1]}) "
        f"vs best peer {peer_latency[0]:.1f} ms ({peer_latency[1]}): "
        f"{peer_latency[0] / ours_latency[0]:.2f}x (goal: lowest)"
    )
    print(
        f"batch-{args.batch_size} throughput: best albert_tf {ours_rate[0]:.2f} seq/s "
        f"({ours_rate[1]}) vs best peer {peer_rate[0]:.2f} ({peer_rate[1]}): "
        f"{ours_rate[0] / peer_rate[0]:.2f}x (goal 1.2x)"
    )


if __name__ == "__main__":
    main()
