"""Compute precision: the names users pass and the `"auto"` choice per device.

Measured with `benchmarks/bench_pretraining.py` (ALBERT-base, batch 8, length
128): on a CPU with AVX512-BF16 but no AMX, mixed_bfloat16 runs a training
step at 0.58x float32 speed (0.93x with XLA), since oneDNN's AVX-512 bf16
matmuls are slower than its float32 ones there. bf16 pays off where the
hardware has bf16 matrix units: TPUs, NVIDIA GPUs from Ampere on, and CPUs
with AMX.
"""

from __future__ import annotations

import functools

import tensorflow as tf

from albert_tf.errors import UserError

PRECISIONS = ("auto", "float32", "mixed_bfloat16", "mixed_float16")


def resolve_precision(precision: str, strategy: tf.distribute.Strategy | None = None) -> str:
    """The dtype policy name for `precision`; `"auto"` picks the fastest for the device.

    Example:
    >>> resolve_precision("mixed_float16")
    'mixed_float16'
    >>> resolve_precision("auto") in ("float32", "mixed_bfloat16")
    True
    """
    if precision not in PRECISIONS:
        raise UserError(f"precision={precision!r}; choose one of {PRECISIONS}.")
    if precision != "auto":
        return precision
    return "mixed_bfloat16" if _has_bf16_matrix_units(strategy) else "float32"


def _has_bf16_matrix_units(strategy: tf.distribute.Strategy | None) -> bool:
    if isinstance(strategy, tf.distribute.TPUStrategy):
        return True
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        capability = tf.config.experimental.get_device_details(gpus[0]).get(
            "compute_capability", (0, 0)
        )
        return tuple(capability) >= (8, 0)
    return cpu_has_amx()


@functools.cache
def cpu_has_amx() -> bool:
    """Whether the CPU advertises AMX bf16 tiles (Linux `/proc/cpuinfo`)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    return "amx_bf16" in line.split()
    except OSError:
        pass
    return False
