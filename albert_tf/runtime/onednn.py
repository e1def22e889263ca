"""`choose_onednn`: whether TensorFlow's oneDNN rewrites run, decided before TensorFlow loads.

TensorFlow turns its oneDNN graph rewrites on by default only on CPUs with VNNI, AVX512_BF16 or
AMX (`machine.ONEDNN_DEFAULT_FLAGS`); elsewhere (e.g. an AVX2-only CPU) float32 matmuls run on
Eigen, whose GEMM can be slower than oneDNN's for a training step's shapes. The setting,
`TF_ENABLE_ONEDNN_OPTS`, is read once when TensorFlow loads, so no per-process runtime choice
made after the import can change it. The `albert-tf` commands therefore call `choose_onednn`
first (`albert_tf.cli`): where TensorFlow would leave oneDNN off, a probe times a fine-tuning
FFN step and a batch's forward in two short subprocesses, oneDNN off and on, and turns it on
only where it measured at least `MARGIN` faster. The result is cached per machine. (One text
per call is left out: where the runtime compiles it (`compiled_serving`), XLA's matmuls run
it, not oneDNN's or Eigen's, and that choice is probed after this one, under it.)

`TF_ENABLE_ONEDNN_OPTS` set by the user always wins. `ALBERT_TF_ONEDNN`: `auto` (or unset)
probes; `1` turns oneDNN on without a probe; `0` leaves TensorFlow's default (no probe, nothing
set). This module must not import TensorFlow.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

from albert_tf.errors import UserError
from albert_tf.runtime import machine
from albert_tf.runtime.probe_cache import cached_probe

ENV = "ALBERT_TF_ONEDNN"
TF_ENV = "TF_ENABLE_ONEDNN_OPTS"
# oneDNN is chosen only where the probe measured it at least this much faster.
MARGIN = 1.05
PROBE_VERSION = 2
_SETTINGS = {"1": "on", "on": "on", "0": "off", "off": "off", "": "auto", "auto": "auto"}

# The probe, run as `python -c` with TF_ENABLE_ONEDNN_OPTS set: milliseconds of an ALBERT-base
# FFN forward + backward on a fine-tuning batch (32 x 128 rows), and of a served batch's forward
# (8 x 128 rows), medians of a few runs after a warm-up.
_PROBE = """
import json, time
import tensorflow as tf
tf.random.set_seed(0)
w1 = tf.Variable(tf.random.normal([768, 3072]) * 0.02)
w2 = tf.Variable(tf.random.normal([3072, 768]) * 0.02)
@tf.function
def train(x):
    with tf.GradientTape() as tape:
        y = tf.matmul(tf.nn.gelu(tf.matmul(x, w1)), w2)
        loss = tf.reduce_sum(y * y)
    return tape.gradient(loss, [w1, w2])
@tf.function
def serve(x):
    return tf.matmul(tf.nn.gelu(tf.matmul(x, w1)), w2)
def median_ms(function, x, runs):
    function(x)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        tf.nest.map_structure(lambda t: t.numpy(), function(x))
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)[len(times) // 2]
print(json.dumps({
    "train": median_ms(train, tf.random.normal([{train_rows}, 768]), 5),
    "serve": median_ms(serve, tf.random.normal([{serve_rows}, 768]), 9),
}))
"""


# Why TensorFlow's oneDNN setting is what it is, once `choose_onednn` ran (in `runtime.json`).
CHOICE: str | None = None


def choose_onednn() -> str:
    """Sets `TF_ENABLE_ONEDNN_OPTS` where this module decides it; returns (and keeps in
    `CHOICE`) why.

    Call before TensorFlow is imported; afterwards it changes nothing.
    """
    global CHOICE
    CHOICE = _choose()
    return CHOICE


def _choose() -> str:
    if TF_ENV in os.environ:
        return f"{TF_ENV}={os.environ[TF_ENV]} set by the environment"
    setting = _SETTINGS.get(os.environ.get(ENV, "").strip().lower())
    if setting is None:
        raise UserError(f"{ENV}={os.environ[ENV]!r}", fix="set it to 1, 0 or auto")
    if setting == "on":
        os.environ[TF_ENV] = "1"
        return f"oneDNN on: set by {ENV}"
    if setting == "off":
        return f"TensorFlow's default: {ENV}=0"
    flags = machine.cpu_flags()
    if not flags or any(flag in flags for flag in machine.ONEDNN_DEFAULT_FLAGS):
        return "TensorFlow's default (it enables oneDNN on this CPU, or this is not an x86 CPU)"
    timings = _cached_timings(flags)
    if timings is None:
        return "TensorFlow's default (the oneDNN probe did not run)"
    speedup = _speedup(timings)
    if speedup >= MARGIN:
        os.environ[TF_ENV] = "1"
        return f"oneDNN on: measured {speedup:.2f}x faster on this CPU"
    return f"TensorFlow's default, oneDNN off: oneDNN measured {speedup:.2f}x on this CPU"


def _speedup(timings: dict) -> float:
    """Eigen's time over oneDNN's: a training step plus as long a run of batch forwards."""
    off, on = timings["off"], timings["on"]
    calls = off["train"] / max(off["serve"], 1e-6)  # Weigh serving as much as training.
    return (off["train"] + calls * off["serve"]) / (on["train"] + calls * on["serve"])


def _cached_timings(flags: set[str]) -> dict | None:
    """The probe's timings for this machine (cached), or None where the probe failed."""
    try:
        return cached_probe("onednn", [PROBE_VERSION], _measure, flags=flags)
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return None


def _measure() -> dict:
    logging.info("Timing TensorFlow's matmuls with oneDNN off and on (once for this machine).")
    return {setting: _probe(value) for setting, value in (("off", "0"), ("on", "1"))}


def _probe(value: str, train_rows: int = 32 * 128, serve_rows: int = 8 * 128) -> dict:
    """Milliseconds of the probe's training step and batch forward with `TF_ENV=value`."""
    env = {**os.environ, TF_ENV: value, "TF_CPP_MIN_LOG_LEVEL": "3"}
    script = _PROBE.replace("{train_rows}", str(train_rows)).replace(
        "{serve_rows}", str(serve_rows)
    )
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    if result.returncode != 0:
        raise ValueError(result.stderr[-2000:])
    timings = json.loads(result.stdout.strip().splitlines()[-1])
    return {"train": float(timings["train"]), "serve": float(timings["serve"])}
