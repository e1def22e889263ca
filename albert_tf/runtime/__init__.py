"""The speed-only forms of albert_tf and the per-machine choice among them.

The model (`albert_tf.models`) computes everything in plain Keras/TensorFlow ops: the reference.
This package holds what only makes it faster on some machines: the fused XLA kernels of the
Transformer's elementwise chains (`fused_kernels`), the constant-weights serving form
(`constant_weights`, `frozen_weights`), the served forward compiled by XLA
(`compiled_serving`), bf16 serving copies (`serving_weights`) and prediction on frozen weights
with batches cut to their longest text (`prediction`, `trim_padding`).

`configure(RuntimeOptions(...))` decides once per process which forms run (options, then
`ALBERT_TF_FUSED_KERNELS` / `ALBERT_TF_FROZEN_SERVING` / `ALBERT_TF_COMPILED_SERVING`, then a
cached per-machine probe that keeps a fast form only where it measured faster) and installs
them; `describe()` says what was chosen and why, `record(directory)` writes that as
`runtime.json` into a run's files. Entry points, the pretraining loop, the export functions and
the benchmarks call `configure()`; library code that never does runs the plain reference.
"""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "RuntimeOptions",
    "configure",
    "configured",
    "cut_to_longest",
    "describe",
    "frozen_inference",
    "frozen_serving_enabled",
    "predict_outputs",
    "record",
    "reset",
    "serving_copy",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
