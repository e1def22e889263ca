"""Compute precision: the names users pass and the `"auto"` choice per device.

`"auto"` picks mixed_bfloat16 where bf16 matmuls are faster than float32 ones, float32
elsewhere. Accelerators are decided by what they are (TPUs, NVIDIA GPUs from Ampere on). CPUs
are not: CPUs with the same bf16 flags, AMX aside, train in bf16 well above or well below
float32's speed (`benchmarks/bench_pretraining.py`). So on a CPU:

* no bf16 instructions at all (no `avx512_bf16`, `amx_bf16` or `avx_vne_bf16`/`avx_ne_convert`
  in `/proc/cpuinfo`): float32, nothing measured;
* otherwise a probe times an FFN-sized GEMM ([512, 768] x [768, 3072]) in both dtypes,
  interleaved, a few hundred milliseconds in all, compiled the way the run will be (with or
  without XLA: oneDNN runs a bf16 GEMM on AMX tiles, XLA's own CPU dot does not), and bf16
  wins only when it is at least `_BF16_MARGIN` faster.
  The result is cached per machine (`albert_tf.runtime.probe_cache`: CPU model, flags, cores,
  TensorFlow version, the oneDNN and thread settings; and XLA) in
  `$XDG_CACHE_HOME/albert_tf/precision_probe-*.json`, so later runs decide at once.
  `ALBERT_TF_PRECISION_PROBE=0` skips the probe (float32 unless AMX);
  `ALBERT_TF_AUTO_PRECISION=<policy>` makes `auto` mean that policy (the test suite sets
  float32, so its numbers do not depend on the machine it runs on).
"""

from __future__ import annotations

import functools
import os
import time

import tensorflow as tf

from albert_tf.config_fields import check_choice
from albert_tf.errors import UserError
from albert_tf.runtime.machine import BF16_FLAGS, cpu_flags
from albert_tf.runtime.probe_cache import cached_probe

PRECISIONS = ("auto", "float32", "mixed_bfloat16", "mixed_float16")

# bf16 must beat float32 by this much: mixed precision adds casts the GEMM probe does not see.
_BF16_MARGIN = 1.15
_PROBE_SHAPE = (512, 768, 3072)  # tokens x hidden x intermediate: ALBERT-base's FFN GEMM.


def resolve_precision(
    precision: str, strategy: tf.distribute.Strategy | None = None, jit_compile: bool = False
) -> str:
    """The dtype policy name for `precision`; `"auto"` picks the fastest for the device.

    `jit_compile`: whether the model will run under XLA (on CPUs it decides which matmuls run).

    Example:
    >>> resolve_precision("mixed_float16")
    'mixed_float16'
    >>> resolve_precision("auto") in ("float32", "mixed_bfloat16")
    True
    """
    check_choice("precision", precision, PRECISIONS)
    if precision != "auto":
        return precision
    forced = os.environ.get("ALBERT_TF_AUTO_PRECISION")
    if forced:
        if forced not in PRECISIONS[1:]:
            raise UserError(
                f"ALBERT_TF_AUTO_PRECISION={forced!r}",
                fix=f"set it to one of {PRECISIONS[1:]} or unset it",
            )
        return forced
    return "mixed_bfloat16" if _bf16_is_faster(strategy, jit_compile) else "float32"


def _bf16_is_faster(strategy: tf.distribute.Strategy | None, jit_compile: bool) -> bool:
    if isinstance(strategy, tf.distribute.TPUStrategy):
        return True
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        capability = tf.config.experimental.get_device_details(gpus[0]).get(
            "compute_capability", (0, 0)
        )
        return tuple(capability) >= (8, 0)
    return cpu_precision_choice(jit_compile)["precision"] == "mixed_bfloat16"


@functools.cache
def cpu_precision_choice(jit_compile: bool = False) -> dict:
    """What `auto` picks on this CPU and why: flags seen, probe figures (cached per machine).

    `jit_compile`: decide for models compiled with XLA (probed separately, cached separately).

    Returns a dict with `precision`, `reason` and, when probed, `float32_gflops` and
    `bfloat16_gflops`.
    """
    flags = cpu_flags()
    bf16_flags = sorted(set(BF16_FLAGS) & flags)
    if not bf16_flags:
        return {"precision": "float32", "reason": "no bf16 instructions in /proc/cpuinfo"}
    if os.environ.get("ALBERT_TF_PRECISION_PROBE", "1") == "0":
        amx = "amx_bf16" in flags
        return {
            "precision": "mixed_bfloat16" if amx else "float32",
            "reason": f"probe disabled; {'AMX' if amx else 'no AMX'} ({', '.join(bf16_flags)})",
        }

    def measure() -> dict:
        float32, bfloat16 = probe_gemm_gflops(jit_compile=jit_compile)
        faster = bfloat16 >= _BF16_MARGIN * float32
        compiled = "XLA " if jit_compile else ""
        return {
            "precision": "mixed_bfloat16" if faster else "float32",
            "reason": (
                f"probe: {compiled}bf16 GEMM {bfloat16:.0f} vs float32 {float32:.0f} GFLOP/s "
                f"({', '.join(bf16_flags)})"
            ),
            "float32_gflops": round(float32, 1),
            "bfloat16_gflops": round(bfloat16, 1),
        }

    return cached_probe(
        "precision_probe",
        [jit_compile],
        measure,
        valid=lambda cached: cached.get("precision") in PRECISIONS,
        flags=flags,
    )


def probe_gemm_gflops(
    jit_compile: bool = False, repeats: int = 4, rounds: int = 3
) -> tuple[float, float]:
    """Best float32 and bfloat16 GFLOP/s of the FFN-sized GEMM, measured interleaved."""
    m, k, n = _PROBE_SHAPE
    matmul = tf.function(tf.matmul, jit_compile=True) if jit_compile else tf.matmul
    best = {tf.float32: 0.0, tf.bfloat16: 0.0}
    operands = {}
    for dtype in best:
        a = tf.random.stateless_normal((m, k), seed=(1, 2), dtype=tf.float32)
        b = tf.random.stateless_normal((k, n), seed=(3, 4), dtype=tf.float32)
        operands[dtype] = (tf.cast(a, dtype), tf.cast(b, dtype))
        _wait(matmul(*operands[dtype]))  # Warm-up: compiles, or oneDNN picks its kernel.
    for _ in range(rounds):
        for dtype, (a, b) in operands.items():
            start = time.perf_counter()
            for _ in range(repeats):
                product = matmul(a, b)
            _wait(product)
            seconds = (time.perf_counter() - start) / repeats
            best[dtype] = max(best[dtype], 2 * m * k * n / seconds / 1e9)
    return best[tf.float32], best[tf.bfloat16]


def _wait(tensor: tf.Tensor) -> None:
    # Reading one element waits for the op without timing a copy of the whole product.
    float(tensor[0, 0])
