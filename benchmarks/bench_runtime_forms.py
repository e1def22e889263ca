"""Each speed-only form of `albert_tf.runtime` against the plain reference, per CPU kind.

For this machine and, in subprocesses, oneDNN held to lower instruction sets
(`ONEDNN_MAX_CPU_ISA`, a stand-in for CPUs without them: it caps oneDNN's kernels, not
TensorFlow's choice of which ops to hand oneDNN, nor XLA's code), three measurements, each with
the form forced on ("fast"), forced off ("plain") and as the runtime picks it here ("picked",
`configure()`'s auto, probed per kind):

* `train`: `fit` steps of an `AlbertClassifier` (pair classification, AdamW), the fused XLA
  kernels on or off;
* `predict`: `predict_outputs` over texts of mixed lengths, frozen serving on (constant weights,
  batches cut to their longest text) or off (`model.predict`);
* `serve b1` / `serve bN`: the served model's call at batch 1 (latency) and at `--serve_batch`,
  on constant weights (frozen) or on variables.

The variants run interleaved, round by round, after one warm-up each; each figure is the median
seconds of one call. The table gives plain / fast and plain / picked (above 1: faster than the
reference) and what the runtime picked, so that a pick can be checked never to be the slower.

Illustration (not run; minutes on 2 cores at ALBERT-base):
    python benchmarks/bench_runtime_forms.py --isas=native,AVX2
    python benchmarks/bench_runtime_forms.py --preset=albert_tiny --seq_length=32 \
        --batch_size=4 --rounds=1  # a smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

import keras
import numpy as np
import tensorflow as tf
from bench_finetune import albert_tf_classifier, fit_runner, synthetic_pairs
from timing import interleaved_seconds

from albert_tf import runtime
from albert_tf.config import AlbertConfig
from albert_tf.runtime.frozen_weights import constant_weights_function
from albert_tf.runtime.prediction import predict_outputs
from albert_tf.runtime.serving_weights import serving_copy
from albert_tf.training.precision import resolve_precision

FORCED = {
    "fast": runtime.RuntimeOptions(fused_kernels="on", frozen_serving="on"),
    "plain": runtime.RuntimeOptions(fused_kernels="off", frozen_serving="off"),
}
# The form each measurement compares.
FORM_OF = {"train": "fused_kernels", "predict": "frozen_serving", "serve": "frozen_serving"}


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isas", default="native", help="native and/or ONEDNN_MAX_CPU_ISA values")
    parser.add_argument(
        "--onednn", default="", help="TF_ENABLE_ONEDNN_OPTS for every kind (empty: TF's default)"
    )
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--batch_size", type=int, default=8, help="training batch")
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=2, help="fit steps per timed call")
    parser.add_argument("--predict_texts", type=int, default=64)
    parser.add_argument("--serve_batch", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def main() -> None:
    args = _parse_args()
    if args.child:
        print(json.dumps(measure(args)))
        return
    results = {isa: _run_kind(isa, args) for isa in args.isas.split(",")}
    _print_table(results)


def _run_kind(isa: str, args: argparse.Namespace) -> dict:
    """`measure` in a fresh process (oneDNN reads its settings when TensorFlow loads)."""
    env = dict(os.environ)
    env.pop("ONEDNN_MAX_CPU_ISA", None)
    if isa != "native":
        env["ONEDNN_MAX_CPU_ISA"] = isa
    if args.onednn:
        env["TF_ENABLE_ONEDNN_OPTS"] = args.onednn
    print(f"{isa}: measuring in a subprocess ...", flush=True)
    command = [sys.executable, os.path.abspath(__file__), "--child", *sys.argv[1:]]
    process = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if process.returncode:
        sys.exit(f"{isa}: failed\n{process.stderr[-4000:]}")
    return json.loads(process.stdout.strip().splitlines()[-1])


def measure(args: argparse.Namespace) -> dict:
    """Median seconds per call of each measurement's variants, and what the runtime picked."""
    picked = runtime.configure()
    description = runtime.describe()
    precision = resolve_precision(args.precision)
    config = AlbertConfig.preset(args.preset, hidden_dropout_prob=0.0)
    variants = {**FORCED, "picked": None}
    runners: dict[str, dict] = {"train": {}, "predict": {}, "serve b1": {}, "serve bN": {}}
    data = synthetic_pairs(config, args.batch_size, args.seq_length)
    texts = _mixed_length_features(config, args.predict_texts, args.seq_length)
    for variant, options in variants.items():
        with runtime.configured(options) if options else _unchanged():
            # Built and traced under the variant's forms; the traced graphs keep them.
            model, features = albert_tf_classifier(config, data, precision, jit_compile=False)
            runners["train"][variant] = fit_runner(model, features, data["labels"], args.steps)
            runners["train"][variant]()  # Traces `fit`'s step now, with these forms.
            serve = _served_call(model)
            runners["serve b1"][variant] = _bound(serve, _rows(features, 1))
            runners["serve bN"][variant] = _bound(serve, _rows(features, args.serve_batch))
        runners["predict"][variant] = _predicting(model, texts, options)
    seconds = {
        name: {
            variant: statistics.median(times)
            for variant, times in interleaved_seconds(calls, 1, args.rounds).items()
        }
        for name, calls in runners.items()
    }
    return {
        "seconds": seconds,
        "picked": {name: choice.as_dict() for name, choice in picked.items()},
        "precision": precision,
        "machine": description["machine"],
    }


def _served_call(model: keras.Model) -> object:
    """The export's forward with the forms in force: on constant weights where frozen serving
    is on, else on variables; traced now, so that it keeps these forms."""
    served = serving_copy(model)
    if runtime.frozen_serving_enabled():
        call = constant_weights_function(served)
    else:
        spec = {name: tf.TensorSpec([None, None], tf.int32) for name in served.input}
        call = tf.function(lambda inputs: served(inputs, training=False), input_signature=[spec])
    call.get_concrete_function()
    return call


def _predicting(model: keras.Model, texts: dict, options) -> object:
    """`predict_outputs` with the variant's frozen serving setting in force for the call."""
    dataset = tf.data.Dataset.from_tensor_slices(texts).batch(16)

    def run():
        with runtime.configured(options) if options else _unchanged():
            return predict_outputs(model, dataset)

    return run


class _unchanged:
    """A no-op block (the runtime's pick stays in force)."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _bound(call, inputs: dict):
    tensors = {name: tf.constant(value) for name, value in inputs.items()}
    return lambda: np.asarray(tf.nest.flatten(call(tensors))[0])


def _rows(features: dict, count: int) -> dict:
    return {name: np.resize(value, (count, value.shape[1])) for name, value in features.items()}


def _mixed_length_features(config: AlbertConfig, count: int, length: int) -> dict:
    """`count` packed texts of 8 to `length` pieces (what prediction cuts to its longest)."""
    rng = np.random.default_rng(1)
    lengths = rng.integers(min(8, length), length + 1, size=count)
    mask = (np.arange(length)[None] < lengths[:, None]).astype(np.int32)
    return {
        "input_word_ids": (rng.integers(5, config.vocab_size, (count, length)) * mask).astype(
            np.int32
        ),
        "input_mask": mask,
        "input_type_ids": np.zeros((count, length), np.int32),
    }


def _print_table(results: dict) -> None:
    print(
        f"\n{'kind':<18} {'measurement':<10} {'form':<15} {'plain ms':>10} {'fast ms':>10} "
        f"{'picked ms':>10} {'plain/fast':>10} {'plain/picked':>12}  runtime picked"
    )
    for isa, result in results.items():
        kind = f"{isa} ({result['precision']})"
        for name, seconds in result["seconds"].items():
            form = FORM_OF[name.split()[0]]
            choice = result["picked"][form]
            ms = {variant: 1e3 * value for variant, value in seconds.items()}
            print(
                f"{kind:<18} {name:<10} {form:<15} {ms['plain']:10.1f} {ms['fast']:10.1f} "
                f"{ms['picked']:10.1f} {ms['plain'] / ms['fast']:10.2f} "
                f"{ms['plain'] / ms['picked']:12.2f}  {_pick(choice)}"
            )
    print(
        "\nONEDNN_MAX_CPU_ISA kinds are stand-ins: oneDNN's kernels held to those instructions "
        "on this CPU, TensorFlow's oneDNN rewrites and XLA's code as on this CPU."
    )


def _pick(choice: dict) -> str:
    kept = [case for case, figures in choice.get("cases", {}).items() if figures["fast_form_kept"]]
    state = "on" if choice["enabled"] else "off"
    detail = f" in {', '.join(kept)}" if choice["enabled"] and choice.get("cases") else ""
    return f"{state}{detail} ({choice['source']})"


if __name__ == "__main__":
    main()
