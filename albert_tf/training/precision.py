"""Compute precision: the names users pass and what `"auto"` picks per device.

`"auto"` picks mixed_bfloat16 where bf16 matmuls run much faster than float32 ones, float32
elsewhere, by what the device is, never by a timing:

* TPUs, and NVIDIA GPUs from Ampere on: mixed_bfloat16;
* CPUs with AMX (`amx_bf16`), where oneDNN runs the model (TensorFlow's oneDNN rewrites on,
  `ONEDNN_MAX_CPU_ISA` not capping below AMX) and not under XLA (whose CPU matmuls use no
  AMX): mixed_bfloat16 (an FFN-sized GEMM at 509 against 144 GFLOP/s, training 2.5x);
* every other CPU: float32. CPUs with `avx512_bf16` but no AMX train in bf16 well above or
  well below float32's speed from one machine of a kind to the next (two Zen 4 machines: 1.7x
  and 0.5x), so `auto` keeps the reference there; pass `--precision=mixed_bfloat16` to choose.

`ALBERT_TF_PRECISION=<policy>` makes `auto` mean that policy (the test suite sets float32, so
its numbers and tolerances do not depend on the machine it runs on).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from albert_tf import environment
from albert_tf.config_fields import check_choice
from albert_tf.runtime import machine

if TYPE_CHECKING:  # The names and the help are read without TensorFlow (the commands' flags).
    import tensorflow as tf

PRECISIONS = ("auto", "float32", "mixed_bfloat16", "mixed_float16")
PRECISION_ENV = "ALBERT_TF_PRECISION"
# What `"auto"` picks, in one sentence: the `--precision` help quotes it.
AUTO_PRECISION_HELP = (
    "auto = mixed_bfloat16 on TPUs, Ampere+ GPUs and CPUs with AMX (without XLA); float32 "
    f"elsewhere ({PRECISION_ENV}=<policy> overrides)"
)


def resolve_precision(
    precision: str, strategy: tf.distribute.Strategy | None = None, jit_compile: bool = False
) -> str:
    """The dtype policy name for `precision`; `"auto"` picks by device (module docstring).

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
    forced = environment.choice(PRECISION_ENV, PRECISIONS, "auto")
    if forced != "auto":
        return forced
    return "mixed_bfloat16" if _bf16_is_faster(strategy, jit_compile) else "float32"


def _bf16_is_faster(strategy: tf.distribute.Strategy | None, jit_compile: bool) -> bool:
    import tensorflow as tf  # Not at the top: the commands' flags import this module.

    if isinstance(strategy, tf.distribute.TPUStrategy):
        return True
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        capability = tf.config.experimental.get_device_details(gpus[0]).get(
            "compute_capability", (0, 0)
        )
        return tuple(capability) >= (8, 0)
    return cpu_precision_choice(jit_compile)["precision"] == "mixed_bfloat16"


def cpu_precision_choice(jit_compile: bool = False, flags: set[str] | None = None) -> dict:
    """What `auto` picks on this CPU (or one with `flags`) and why: `precision`, `reason`.

    Example:
    >>> cpu_precision_choice(flags={"avx2"}, jit_compile=False)["precision"]
    'float32'
    """
    flags = machine.cpu_flags() if flags is None else flags
    if "amx_bf16" not in flags:
        return {"precision": "float32", "reason": "no AMX: bf16 is not reliably faster"}
    if jit_compile:
        return {"precision": "float32", "reason": "AMX, but XLA's CPU matmuls do not use it"}
    if not machine.onednn_runs("bfloat16", flags):
        return {"precision": "float32", "reason": "AMX, but TensorFlow's oneDNN rewrites are off"}
    cap = os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper()
    if cap and cap != "ALL" and "AMX" not in cap:
        return {"precision": "float32", "reason": f"AMX, but ONEDNN_MAX_CPU_ISA={cap}"}
    return {"precision": "mixed_bfloat16", "reason": "AMX: oneDNN runs bf16 matmuls on tiles"}
