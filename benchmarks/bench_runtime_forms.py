"""Each speed-only form of `albert_tf.runtime` against the plain path, per CPU kind.

For this machine and, in subprocesses, simulated kinds, each form is measured where it acts,
"fast" (the form on) against "plain" (the reference), in rounds interleaved after a warm-up:

* `train` / `fused_kernels`: one `fit` step of an `AlbertClassifier` (pair classification,
  AdamW), the chains plain or fused (`use_chains`);
* `serve b1` / `serve bN` / `compiled_serving`: the export's forward (`model_forward`) at batch 1
  and at `--serve_batch`, as a graph or compiled for one row;
* `predict`: `model.predict` against `predict_outputs` (batches cut to their longest text), for
  the record: not a form, the commands always predict so on a CPU.

Kinds: `native`; `AVX2`, the AVX2-only CPU as TensorFlow runs it by default (oneDNN's rewrites
off: `TF_ENABLE_ONEDNN_OPTS=0`, and oneDNN's and XLA's code held to AVX2:
`ONEDNN_MAX_CPU_ISA=AVX2`, `XLA_FLAGS=--xla_cpu_max_isa=AVX2`); `AVX2_onednn`, the same with
oneDNN's rewrites forced on. The stand-ins run TensorFlow's and Eigen's own kernels as on this
CPU (the wheel's baseline code, as on an AVX2 CPU), not an AVX2 machine's memory system.

A form wins in a row where the median plain/fast ratio is at least `MARGIN` and every fast round
beat every plain round. Each row also prints what `auto` (`Runtime.for_machine()`) picks in that
kind: the rule is kept only where every kind's picks are wins or ties (docs/benchmarks.md).

Illustration (not run; ~10 minutes per kind on 2 cores at ALBERT-base):
    python benchmarks/bench_runtime_forms.py --kinds=native,AVX2 --batch_size=16 --rounds=5
    python benchmarks/bench_runtime_forms.py --preset=albert_tiny --seq_length=32 \\
        --batch_size=4 --rounds=2  # a smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np
import tensorflow as tf
from bench_finetune import albert_tf_classifier, fit_runner, synthetic_pairs
from timing import interleaved_seconds

from albert_tf.config import AlbertConfig
from albert_tf.export.serving_copy import serving_copy
from albert_tf.export.task_export import model_forward
from albert_tf.finetune.prediction import predict_outputs
from albert_tf.runtime import Runtime
from albert_tf.training.precision import resolve_precision

# A fast form must be at least this much faster (median ratio), every round apart.
MARGIN = 1.10
KINDS = {
    "native": {},
    "AVX2": {
        "TF_ENABLE_ONEDNN_OPTS": "0",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "XLA_FLAGS": "--xla_cpu_max_isa=AVX2",
    },
    "AVX2_onednn": {
        "TF_ENABLE_ONEDNN_OPTS": "1",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "XLA_FLAGS": "--xla_cpu_max_isa=AVX2",
    },
}
# Measurement -> the form it compares ("" for the record: no form).
FORMS = {
    "train": "fused_kernels",
    "serve b1": "compiled_serving",
    "serve bN": "compiled_serving",
    "predict": "",
}


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="native,AVX2", help=", ".join(KINDS))
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument("--precision", default="float32")
    parser.add_argument("--batch_size", type=int, default=16, help="training batch")
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=1, help="fit steps per timed call")
    parser.add_argument("--predict_texts", type=int, default=64)
    parser.add_argument("--serve_batch", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def main() -> None:
    args = _parse_args()
    if args.child:
        print(json.dumps(measure(args)))
        return
    results = {kind: _run_kind(kind, args) for kind in args.kinds.split(",")}
    _print_table(results)


def _run_kind(kind: str, args: argparse.Namespace) -> dict:
    """`measure` in a fresh process (oneDNN and XLA read their settings when they load)."""
    env = {k: v for k, v in os.environ.items() if k not in ("ALBERT_TF_FUSED_KERNELS",)}
    for name in ("TF_ENABLE_ONEDNN_OPTS", "ONEDNN_MAX_CPU_ISA", "XLA_FLAGS"):
        env.pop(name, None)
    env.update(KINDS[kind])
    print(f"{kind}: measuring in a subprocess ...", flush=True)
    command = [sys.executable, os.path.abspath(__file__), "--child", *sys.argv[1:]]
    process = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if process.returncode:
        sys.exit(f"{kind}: failed\n{process.stderr[-4000:]}")
    return json.loads(process.stdout.strip().splitlines()[-1])


def measure(args: argparse.Namespace) -> dict:
    """Seconds per call of each measurement's plain and fast variants, every round."""
    precision = resolve_precision(args.precision)
    config = AlbertConfig.preset(args.preset, hidden_dropout_prob=0.0)
    data = synthetic_pairs(config, args.batch_size, args.seq_length)
    runners: dict[str, dict] = {"train": {}}
    for variant, runtime in {"plain": Runtime(), "fast": Runtime(fused_kernels=True)}.items():
        model, features = albert_tf_classifier(config, data, precision, False, runtime=runtime)
        train = fit_runner(model, features, data["labels"], args.steps)
        train()  # Traces `fit`'s step now, with these chains.
        runners["train"][variant] = train
    model = serving_copy(model)  # What exports serve: the plain chains.
    forwards = {
        variant: model_forward(model, Runtime(compiled_serving=compiled))
        for variant, compiled in (("plain", False), ("fast", True))
    }
    for name, batch in (("serve b1", 1), ("serve bN", args.serve_batch)):
        inputs = {k: tf.constant(np.resize(v, (batch, v.shape[1]))) for k, v in features.items()}
        runners[name] = {v: _bound(call, inputs) for v, call in forwards.items()}
    texts = tf.data.Dataset.from_tensor_slices(
        _mixed_length_features(config, args.predict_texts, args.seq_length)
    ).batch(16)
    runners["predict"] = {
        "plain": lambda: model.predict(texts, verbose=0),
        "fast": lambda: predict_outputs(model, texts),
    }
    rounds = {name: interleaved_seconds(calls, 1, args.rounds) for name, calls in runners.items()}
    picked = Runtime.for_machine()
    return {
        "rounds": rounds,
        "picked": {form: getattr(picked, form) for form in set(FORMS.values()) if form},
        "precision": precision,
    }


def _bound(call, inputs: dict):
    return lambda: np.asarray(tf.nest.flatten(call(inputs))[0])


def _mixed_length_features(config: AlbertConfig, count: int, length: int) -> dict:
    """`count` packed texts of 8 to `length` pieces (what prediction cuts to its longest)."""
    rng = np.random.default_rng(1)
    lengths = rng.integers(min(8, length), length + 1, size=count)
    mask = (np.arange(length)[None] < lengths[:, None]).astype(np.int32)
    ids = (rng.integers(5, config.vocab_size, (count, length)) * mask).astype(np.int32)
    return {"input_word_ids": ids, "input_mask": mask, "input_type_ids": np.zeros_like(mask)}


def verdict(plain: list[float], fast: list[float]) -> str:
    """ "win" (median ratio >= MARGIN and every round apart), "loss" (the other way), "tie".

    >>> verdict([1.2, 1.25, 1.3], [1.0, 1.05, 1.1]), verdict([1.0, 1.1], [1.05, 1.0])
    ('win', 'tie')
    """
    ratio = statistics.median(plain) / statistics.median(fast)
    if ratio >= MARGIN and min(plain) > max(fast):
        return "win"
    if 1 / ratio >= MARGIN and min(fast) > max(plain):
        return "loss"
    return "tie"


def _print_table(results: dict) -> None:
    print(
        f"\n{'kind':<12} {'measurement':<10} {'form':<17} {'plain ms':>17} {'fast ms':>17} "
        f"{'plain/fast':>10}  verdict  auto picks"
    )
    for kind, result in results.items():
        for name, rounds in result["rounds"].items():
            plain, fast = rounds["plain"], rounds["fast"]
            form = FORMS[name]
            pick = ("on" if result["picked"][form] else "off") if form else "(always, on a CPU)"
            print(
                f"{kind:<12} {name:<10} {form or 'cut batches':<17} {_spread(plain):>17} "
                f"{_spread(fast):>17} {statistics.median(plain) / statistics.median(fast):10.2f}"
                f"  {verdict(plain, fast):<7}  {pick}"
            )
    print(
        f"\nms: median (min-max) of the rounds; win: median ratio >= {MARGIN} and every fast "
        "round faster than every plain one; precision: "
        + ", ".join(f"{kind} {result['precision']}" for kind, result in results.items())
    )


def _spread(seconds: list[float]) -> str:
    ms = [1e3 * s for s in seconds]
    return f"{statistics.median(ms):.0f} ({min(ms):.0f}-{max(ms):.0f})"


if __name__ == "__main__":
    main()
