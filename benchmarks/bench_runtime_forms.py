"""Each speed-only form of `albert_tf.runtime` against the plain reference, per CPU kind.

For this machine and, in subprocesses, oneDNN held to lower instruction sets
(`ONEDNN_MAX_CPU_ISA`, a stand-in for CPUs without them: it caps oneDNN's kernels, not
TensorFlow's choice of which ops to hand oneDNN, nor XLA's code), each form is measured where it
acts, with that form alone on ("fast"), every form off ("plain") and every form as the runtime
picks it here ("picked", `configure()`'s auto, probed per kind):

* `train fused_kernels`: `fit` steps of an `AlbertClassifier` (pair classification, AdamW);
* `predict frozen_serving`: `predict_outputs` over texts of mixed lengths (frozen: constant
  weights, batches cut to their longest text; plain: `model.predict`);
* `serve b1` / `serve bN`, `fused_kernels`, `frozen_serving` and `compiled_serving`: the
  export's forward (`frozen_inference` of its serving copy) at batch 1 (latency) and at
  `--serve_batch`.

The variants run interleaved, round by round, after one warm-up each; each figure is the median
seconds of one call. The table gives plain / fast and plain / picked (above 1: faster than the
reference), best / picked (the faster of plain and fast over picked: 1 or above where the pick
is the faster one) and what the runtime picked.

Illustration (not run; minutes on 2 cores at ALBERT-base):
    python benchmarks/bench_runtime_forms.py --isas=native,AVX2
    python benchmarks/bench_runtime_forms.py --preset=albert_tiny --seq_length=32 \
        --batch_size=4 --rounds=1  # a smoke run
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
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
from albert_tf.runtime.frozen_weights import frozen_inference
from albert_tf.runtime.prediction import predict_outputs
from albert_tf.runtime.serving_weights import serving_copy
from albert_tf.training.precision import resolve_precision

FORMS = tuple(field.name for field in dataclasses.fields(runtime.RuntimeOptions))
PLAIN = runtime.RuntimeOptions.reference()


def only(form: str) -> runtime.RuntimeOptions:
    """`form` on, every other form off: that form against the plain path alone."""
    return dataclasses.replace(PLAIN, **{form: "on"})


# Each measurement and the forms it compares.
MEASURED_FORMS = {
    "train": ("fused_kernels",),
    "predict": ("frozen_serving",),
    "serve b1": ("fused_kernels", "frozen_serving", "compiled_serving"),
    "serve bN": ("fused_kernels", "frozen_serving", "compiled_serving"),
}


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
    """Median seconds per call of each (measurement, form)'s variants, and what was picked."""
    picked = runtime.configure()
    description = runtime.describe()
    precision = resolve_precision(args.precision)
    config = AlbertConfig.preset(args.preset, hidden_dropout_prob=0.0)
    data = synthetic_pairs(config, args.batch_size, args.seq_length)
    texts = _mixed_length_features(config, args.predict_texts, args.seq_length)
    runners: dict[str, dict] = {}
    models = {}
    for variant, options in {"plain": PLAIN, "fast": only("fused_kernels"), "picked": None}.items():
        with _configured(options):
            # Built and traced under the variant's forms; the traced graphs keep them.
            model, features = albert_tf_classifier(config, data, precision, jit_compile=False)
            models[variant] = model
            train = fit_runner(model, features, data["labels"], args.steps)
            train()  # Traces `fit`'s step now, with these forms.
        runners.setdefault("train fused_kernels", {})[variant] = train
    model = models["plain"]
    predicting = {"plain": PLAIN, "fast": only("frozen_serving"), "picked": None}
    runners["predict frozen_serving"] = {
        variant: _predicting(model, texts, options) for variant, options in predicting.items()
    }
    served = {"plain": _served_call(model, PLAIN), "picked": _served_call(model, None)}
    for form in MEASURED_FORMS["serve b1"]:
        calls = {**served, "fast": _served_call(model, only(form))}
        for name, batch in (("serve b1", 1), ("serve bN", args.serve_batch)):
            inputs = _rows(features, batch)
            runners[f"{name} {form}"] = {v: _bound(call, inputs) for v, call in calls.items()}
    rounds = {name: interleaved_seconds(calls, 1, args.rounds) for name, calls in runners.items()}
    seconds = {
        name: {variant: statistics.median(times) for variant, times in timings.items()}
        for name, timings in rounds.items()
    }
    return {
        "seconds": seconds,
        "rounds": rounds,
        "picked": {name: choice.as_dict() for name, choice in picked.items()},
        "precision": precision,
        "machine": description["machine"],
    }


def _configured(options: runtime.RuntimeOptions | None):
    """`options` in force for the block; None: the runtime's pick, as configured."""
    return runtime.configured(options) if options else contextlib.nullcontext()


def _served_call(model: keras.Model, options: runtime.RuntimeOptions | None) -> object:
    """The export's forward (`frozen_inference` of its serving copy) under `options`; traced
    now, so that it keeps those forms."""
    with _configured(options):
        call = frozen_inference(serving_copy(model))
        call.get_concrete_function()
    return call


def _predicting(model: keras.Model, texts: dict, options) -> object:
    """`predict_outputs` with the variant's frozen serving setting in force for the call."""
    dataset = tf.data.Dataset.from_tensor_slices(texts).batch(16)

    def run():
        with _configured(options):
            return predict_outputs(model, dataset)

    return run


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
        f"\n{'kind':<18} {'measurement':<12} {'form':<17} {'plain ms':>10} {'fast ms':>10} "
        f"{'picked ms':>10} {'plain/fast':>10} {'plain/picked':>12} {'best/picked':>11}  "
        "runtime picked"
    )
    for isa, result in results.items():
        kind = f"{isa} ({result['precision']})"
        for name, seconds in result["seconds"].items():
            measurement, form = name.rsplit(" ", 1)
            ms = {variant: 1e3 * value for variant, value in seconds.items()}
            print(
                f"{kind:<18} {measurement:<12} {form:<17} {ms['plain']:10.1f} {ms['fast']:10.1f} "
                f"{ms['picked']:10.1f} {ms['plain'] / ms['fast']:10.2f} "
                f"{ms['plain'] / ms['picked']:12.2f} "
                f"{min(ms['plain'], ms['fast']) / ms['picked']:11.2f}  "
                f"{_pick(result['picked'][form], result['precision'])}"
            )
    print("\nevery round, ms (plain | fast | picked):")
    for isa, result in results.items():
        for name, timings in result["rounds"].items():
            cells = " | ".join(
                " ".join(f"{1e3 * t:.0f}" for t in timings[variant])
                for variant in ("plain", "fast", "picked")
            )
            print(f"  {isa:<8} {name:<30} {cells}")
    print(
        "\nfast: that form alone on; plain: every form off; picked: what the runtime chose here "
        "(all forms together).\nONEDNN_MAX_CPU_ISA kinds are stand-ins: oneDNN's kernels held "
        "to those instructions on this CPU, TensorFlow's oneDNN rewrites and XLA's code as on "
        "this CPU."
    )


def _pick(choice: dict, precision: str) -> str:
    """on/off, the cases of the measured precision's dtype where the fast form was kept, source."""
    dtype = "bfloat16" if "bfloat16" in precision else "float32"
    kept = [
        case
        for case, figures in choice.get("cases", {}).items()
        if figures["fast_form_kept"] and dtype in case.split("/")
    ]
    state = "on" if choice["enabled"] else "off"
    detail = f" in {', '.join(kept)}" if choice["enabled"] and choice.get("cases") else ""
    return f"{state}{detail} ({choice['source']})"


if __name__ == "__main__":
    main()
