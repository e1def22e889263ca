"""`RuntimeOptions`: which speed-only forms a process may run, each "auto", "on" or "off".

Each field is resolved once per process (`albert_tf.runtime.configure`): an explicit "on" or
"off" (a flag) wins; else the field's environment variable (`1`/`0`); else "auto", which the
runtime decides per machine (by what an accelerator is; on CPUs by a cached probe that times the
fast form against the plain reference). Flags are generated from the fields: each carries its
help text and environment variable in its metadata.
"""

from __future__ import annotations

import dataclasses
import os

from albert_tf.errors import UserError

SETTINGS = ("auto", "on", "off")
_ENV_SETTINGS = {"1": "on", "0": "off", "on": "on", "off": "off", "auto": "auto", "": "auto"}


def _setting(help_text: str, env: str) -> dataclasses.Field:
    return dataclasses.field(default="auto", metadata={"help": help_text, "env": env})


@dataclasses.dataclass(frozen=True)
class RuntimeOptions:
    """The speed-only forms' settings (see the module docstring).

    Example:
    >>> RuntimeOptions(frozen_serving="off").fused_kernels
    'auto'
    """

    fused_kernels: str = _setting(
        "Bias + activation, bias + residual + LayerNorm and the masked softmax as XLA kernels "
        "between TensorFlow's matmuls; auto: on CPUs per chain, dtype and size where measured "
        "faster, off on GPUs/TPUs.",
        "ALBERT_TF_FUSED_KERNELS",
    )
    frozen_serving: str = _setting(
        "Exports and CPU prediction run on the weights as graph constants (oneDNN reorders them "
        "once, grappler fuses each matmul with its bias and activation); auto: where measured "
        "faster than reading variables.",
        "ALBERT_TF_FROZEN_SERVING",
    )
    compiled_serving: str = _setting(
        "Exports and served calls run the forward pass as one XLA program (jit_compile, one "
        "program per input shape; TF Serving then needs --xla_cpu_compilation_enabled=true), "
        "for one text per call, for batches, or both; auto: where measured faster, off on "
        "GPUs/TPUs.",
        "ALBERT_TF_COMPILED_SERVING",
    )

    @classmethod
    def reference(cls) -> RuntimeOptions:
        """Every form off: the plain reference everywhere (e.g. a graph traced for other machines).

        >>> RuntimeOptions.reference().compiled_serving
        'off'
        """
        return cls(**{field.name: "off" for field in dataclasses.fields(cls)})

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value not in SETTINGS:
                raise UserError(
                    f"{field.name}={value!r}", fix=f"choose one of {', '.join(SETTINGS)}"
                )


def requested(options: RuntimeOptions, form: str) -> tuple[str, str]:
    """(`"auto"`/`"on"`/`"off"`, where it came from) for `form`: option > environment > auto.

    Example:
    >>> requested(RuntimeOptions(fused_kernels="off"), "fused_kernels")
    ('off', 'option')
    """
    value = getattr(options, form)
    if value != "auto":
        return value, "option"
    env = environment_variable(form)
    raw = os.environ.get(env)
    if raw is None:
        return "auto", "auto"
    setting = _ENV_SETTINGS.get(raw.strip().lower())
    if setting is None:
        raise UserError(f"{env}={raw!r}", fix="set it to 1 (on) or 0 (off), or unset it (auto)")
    return setting, "auto" if setting == "auto" else "environment"


def environment_variable(form: str) -> str:
    """The environment variable of `form` (a `RuntimeOptions` field)."""
    fields = {field.name: field for field in dataclasses.fields(RuntimeOptions)}
    return fields[form].metadata["env"]
