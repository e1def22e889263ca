"""`Runtime`: which speed-only form each part of a run uses, decided once, passed explicitly.

The model computes everything in plain Keras/TensorFlow ops (`albert_tf.models`): the reference.
Two forms replace pieces of it where they measured clearly faster on every CPU kind at hand
(docs/benchmarks.md, "The runtime's forms"; `benchmarks/bench_runtime_forms.py`):

* `fused_kernels`: training runs the bias + GELU and bias + residual + LayerNorm chains as
  small XLA kernels between TensorFlow's matmuls (`fused_kernels.FUSED_CHAINS`);
* `compiled_serving`: an export serves one text per call as one XLA program
  (`compiled_serving.compiled_for_one_row`); batches keep TensorFlow's graph.

The fused kernels measured faster in training on every CPU kind at hand (1.06-1.16x against the
plain chains where TensorFlow's oneDNN rewrites are on or off, 1.39x on the AVX2-only EPYC), so
`auto` turns them on on CPUs. The compiled program wins only where oneDNN's rewrites are off,
which is TensorFlow's default on CPUs without VNNI, AVX512_BF16 or AMX (e.g. AVX2-only CPUs):
there each elementwise op of the graph is its own pass over memory, while with oneDNN on the
graph's matmuls carry their elementwise ops and the compiled program measured no faster. On GPUs
and TPUs XLA fuses the plain ops itself: both off. So `auto` is a function of what the machine
is (`machine.onednn_enabled`, `machine.has_accelerator`), never of a timing: two machines of one
kind decide alike.

A command resolves its `RuntimeOptions` (flags, then `ALBERT_TF_FUSED_KERNELS` and
`ALBERT_TF_COMPILED_SERVING`, then auto) into a `Runtime` once, and passes it to what trains and
exports: training hands `runtime.chains` to the model (`albert_tf.models.use_chains`), exports
read `runtime.compiled_serving`. Nothing here is process-wide state.

Example:
>>> Runtime.plain().chains is Runtime().chains
True
>>> RuntimeOptions(fused_kernels="on", compiled_serving="off").resolve().fused_kernels
True
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import TYPE_CHECKING

from albert_tf import environment
from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.runtime import machine

if TYPE_CHECKING:  # The chains are TensorFlow code; the options are read without it.
    from albert_tf.models.chains import Chains

RUNTIME_FILE = "runtime.json"


def _setting(help_text: str, env: str) -> dataclasses.Field:
    return dataclasses.field(default="auto", metadata={"help": help_text, "env": env})


@dataclasses.dataclass(frozen=True)
class RuntimeOptions:
    """What a command was asked for: each form `auto`, `on` or `off` (the flags).

    `auto` defers to the form's environment variable, then to the machine's rule
    (`resolve`).
    """

    fused_kernels: str = _setting(
        "Training runs bias + GELU and bias + residual + LayerNorm as XLA kernels between "
        "TensorFlow's matmuls. auto: on CPUs, off on GPUs and TPUs; env "
        "ALBERT_TF_FUSED_KERNELS.",
        "ALBERT_TF_FUSED_KERNELS",
    )
    compiled_serving: str = _setting(
        "Exports serve one text per call as one XLA program (TF Serving then needs "
        "--xla_cpu_compilation_enabled=true); batches keep the graph. auto: on CPUs where "
        "TensorFlow's oneDNN rewrites are off; env ALBERT_TF_COMPILED_SERVING.",
        "ALBERT_TF_COMPILED_SERVING",
    )

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value not in environment.SWITCH_VALUES:
                raise UserError(
                    f"--{field.name}={value!r}",
                    fix=f"choose one of {', '.join(environment.SWITCH_VALUES)}",
                )

    def resolve(self) -> Runtime:
        """The `Runtime` these options ask for on this machine (see the module docstring)."""
        decided = {}
        for field in dataclasses.fields(self):
            setting, source = getattr(self, field.name), "flag"
            if setting == "auto":
                setting, source = environment.switch(field.metadata["env"]), "environment"
            if setting == "auto":
                decided[field.name] = _MACHINE_RULES[field.name]()
            else:
                decided[field.name] = (setting == "on", f"set by the {source}")
        return Runtime(
            **{name: on for name, (on, _) in decided.items()},
            reasons=tuple((name, reason) for name, (_, reason) in decided.items()),
        )


_OFF_ON_ACCELERATORS = (False, "auto: TensorFlow sees a GPU or TPU (XLA fuses the plain ops there)")


def _fused_kernels_rule() -> tuple[bool, str]:
    """(on, why) for the fused kernels on this machine: on on CPUs."""
    if machine.has_accelerator():
        return _OFF_ON_ACCELERATORS
    return True, "auto: a CPU (the kernels measured faster in training on every CPU kind)"


def _compiled_serving_rule() -> tuple[bool, str]:
    """(on, why) for compiled serving on this machine: on CPUs whose oneDNN rewrites are off."""
    if machine.has_accelerator():
        return _OFF_ON_ACCELERATORS
    if machine.onednn_enabled():
        return False, "auto: TensorFlow's oneDNN rewrites are on (the form measured no faster)"
    return True, "auto: TensorFlow's oneDNN rewrites are off (the form measured faster)"


_MACHINE_RULES = {
    "fused_kernels": _fused_kernels_rule,
    "compiled_serving": _compiled_serving_rule,
}


@dataclasses.dataclass(frozen=True)
class Runtime:
    """Which speed-only form runs (see the module docstring); `Runtime()` is the reference.

    Attributes:
        fused_kernels: training models compute their chains with `FUSED_CHAINS`.
        compiled_serving: exports serve one row per call as an XLA program.
        reasons: (form, why) pairs, for `describe` (not part of the comparison).
    """

    fused_kernels: bool = False
    compiled_serving: bool = False
    reasons: tuple[tuple[str, str], ...] = dataclasses.field(default=(), compare=False)

    @classmethod
    def plain(cls) -> Runtime:
        """Every form off: the plain reference."""
        return cls()

    @classmethod
    def for_machine(cls) -> Runtime:
        """`RuntimeOptions()` resolved: the environment's settings, else this machine's rule."""
        return RuntimeOptions().resolve()

    @property
    def chains(self) -> Chains:
        """The chains a model trains with under this runtime."""
        if not self.fused_kernels:
            from albert_tf.models.chains import PLAIN  # Imports TensorFlow.

            return PLAIN
        from albert_tf.runtime.fused_kernels import FUSED_CHAINS  # Imports TensorFlow.

        return FUSED_CHAINS

    def describe(self) -> dict:
        """What runs and why, with the machine facts the rule read (for `runtime.json`)."""
        reasons = dict(self.reasons)
        return {
            "forms": {
                name: {"on": getattr(self, name), "reason": reasons.get(name, "set in code")}
                for name in ("fused_kernels", "compiled_serving")
            },
            "machine": machine.describe_machine(),
        }

    def record(self, directory: str) -> str:
        """Writes `describe()` as `runtime.json` into `directory`; returns the path."""
        path = os.path.join(directory, RUNTIME_FILE)
        atomic_write_text(path, json.dumps(self.describe(), indent=2) + "\n")
        return path
