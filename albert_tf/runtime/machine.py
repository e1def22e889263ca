"""What this machine can run: CPU flags, accelerators, and what TensorFlow hands to oneDNN.

The runtime's choices, the precision probe and the tests about kernels read the machine through
these functions, so that each can be simulated by patching one place (a test passes other CPU
flags; a subprocess sets `TF_ENABLE_ONEDNN_OPTS` or `ONEDNN_MAX_CPU_ISA`).

TensorFlow's oneDNN rules (Linux x86, `tensorflow/core/util/util.cc` and `mkl_util.h`):

* oneDNN's graph rewrites (`_MklNativeFusedMatMul`, `_MklLayerNorm`, ...) are on by default only
  on CPUs with instructions for neural networks (`ONEDNN_DEFAULT_FLAGS`: VNNI, AVX512_BF16, AMX);
  `TF_ENABLE_ONEDNN_OPTS=1`/`0` decides otherwise. Elsewhere grappler fuses for Eigen
  (`_FusedMatMul`) and LayerNorms stay unfused.
* bfloat16 ops go to oneDNN only on CPUs with AVX-512 or AVX-NE-CONVERT (`ONEDNN_BF16_FLAGS`).
* `ONEDNN_MAX_CPU_ISA` caps the instructions oneDNN's kernels use, not which ops it is given.
"""

from __future__ import annotations

import functools
import os

# CPU flags (/proc/cpuinfo names) of instructions that compute in bf16 (dot products or tiles).
BF16_FLAGS = ("amx_bf16", "avx512_bf16", "avx_vne_bf16", "avx_ne_convert")
# Any of these turns TensorFlow's oneDNN rewrites on by default.
ONEDNN_DEFAULT_FLAGS = (
    "avx512_vnni",
    "avx512_bf16",
    "avx_vnni",
    "amx_tile",
    "amx_int8",
    "amx_bf16",
)
# Any of these lets TensorFlow hand bfloat16 ops to oneDNN.
ONEDNN_BF16_FLAGS = ("avx512f", "avx_ne_convert")
# Settings read when TensorFlow loads that change which kernels run, and how many threads:
# a measurement taken under one setting says nothing about another.
KERNEL_ENV = (
    "TF_ENABLE_ONEDNN_OPTS",
    "ONEDNN_MAX_CPU_ISA",
    "DNNL_MAX_CPU_ISA",
    "ONEDNN_DEFAULT_FPMATH_MODE",
    "TF_SET_ONEDNN_FPMATH_MODE",
    "OMP_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
)


def cpu_flags() -> set[str]:
    """The CPU feature flags of `/proc/cpuinfo` (empty where there is none)."""
    return set(cpuinfo_field("flags").split())


def cpu_model() -> str:
    """The CPU's model name (`/proc/cpuinfo`), or "" where there is none."""
    return cpuinfo_field("model name")


def cpuinfo_field(name: str) -> str:
    """The first value of field `name` in `/proc/cpuinfo`, or ""."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key.strip() == name:
                    return value.strip()
    except OSError:
        pass
    return ""


def kernel_settings() -> dict[str, str]:
    """The `KERNEL_ENV` variables that are set, with their values."""
    return {name: os.environ[name] for name in KERNEL_ENV if name in os.environ}


@functools.cache
def has_accelerator() -> bool:
    """Whether TensorFlow sees a GPU or TPU.

    Physical devices: listing them does not start TensorFlow's runtime, which a command resolves
    its `Runtime` before (a `MultiWorkerMirroredStrategy` created afterwards must still
    configure its collectives, which only a runtime not yet started takes).
    """
    import tensorflow as tf  # Not at the top: the commands' flags import this module.

    return bool(tf.config.list_physical_devices("GPU") or tf.config.list_physical_devices("TPU"))


def onednn_enabled(flags: set[str] | None = None, setting: str | None = None) -> bool:
    """Whether TensorFlow rewrites CPU graphs to oneDNN ops (see the module docstring).

    `flags` and `setting` (`TF_ENABLE_ONEDNN_OPTS`) default to this machine's and process's.

    Example:
    >>> onednn_enabled({"avx2", "avx512_vnni"}, setting=""), onednn_enabled({"avx2"}, setting="")
    (True, False)
    >>> onednn_enabled({"avx2"}, setting="1")
    True
    """
    if setting is None:
        setting = os.environ.get("TF_ENABLE_ONEDNN_OPTS", "")
    setting = setting.strip().lower()
    if setting in ("1", "true"):
        return True
    if setting in ("0", "false"):
        return False
    flags = cpu_flags() if flags is None else flags
    return bool(flags & set(ONEDNN_DEFAULT_FLAGS))


def onednn_runs(dtype: str, flags: set[str] | None = None, setting: str | None = None) -> bool:
    """Whether TensorFlow hands `dtype` ("float32", "bfloat16") matmuls to oneDNN.

    Example:
    >>> onednn_runs("bfloat16", {"avx512f", "amx_bf16"}, setting="")
    True
    >>> onednn_runs("bfloat16", {"avx2"}, setting="1"), onednn_runs("float32", {"avx2"}, "1")
    (False, True)
    """
    flags = cpu_flags() if flags is None else flags
    if not onednn_enabled(flags, setting):
        return False
    if dtype == "bfloat16":
        return bool(flags & set(ONEDNN_BF16_FLAGS))
    return dtype == "float32"


def describe_machine() -> dict:
    """The facts a per-machine choice depends on, as recorded beside it."""
    import tensorflow as tf  # Not at the top: the commands' flags import this module.

    flags = cpu_flags()
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cpu_flags": sorted(
            flags & {*BF16_FLAGS, *ONEDNN_DEFAULT_FLAGS, *ONEDNN_BF16_FLAGS, "avx2", "fma"}
        ),
        "onednn": {
            "enabled": onednn_enabled(flags),
            "bfloat16": onednn_runs("bfloat16", flags),
        },
        "accelerator": has_accelerator(),
        "tensorflow": tf.__version__,
        "settings": kernel_settings(),
    }
