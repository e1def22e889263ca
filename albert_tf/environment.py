"""albert_tf's environment variables, read in one place with one convention.

Every `ALBERT_TF_*` variable is read through this module:

| variable | values | what it sets |
|---|---|---|
| `ALBERT_TF_FUSED_KERNELS` | `auto`, `on`, `off` | `--fused_kernels` where the flag is `auto` |
| `ALBERT_TF_COMPILED_SERVING` | `auto`, `on`, `off` | `--compiled_serving`, likewise |
| `ALBERT_TF_PRECISION` | `auto` or a dtype policy | what `--precision=auto` means |
| `ALBERT_TF_VERBOSE` | `on`, `off` | tracebacks for input errors (`--verbose`) |

A switch takes `auto`, `on` or `off`; `1` means on and `0` off, and unset or empty means its
default. Anything else is a `UserError` naming the variable. Reading a variable changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from albert_tf.errors import UserError

SWITCH_VALUES = ("auto", "on", "off")
_SWITCH_SPELLINGS = {"1": "on", "0": "off", "on": "on", "off": "off", "auto": "auto"}


def switch(name: str, default: str = "auto") -> str:
    """`auto`, `on` or `off` from the variable `name` (`1`: on, `0`: off; unset: `default`).

    Example:
    >>> os.environ["ALBERT_TF_EXAMPLE"] = "0"
    >>> switch("ALBERT_TF_EXAMPLE"), switch("ALBERT_TF_UNSET_EXAMPLE")
    ('off', 'auto')
    >>> del os.environ["ALBERT_TF_EXAMPLE"]
    """
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw not in _SWITCH_SPELLINGS:
        raise UserError(f"{name}={os.environ[name]!r}", fix="set it to auto, on (1) or off (0)")
    return _SWITCH_SPELLINGS[raw]


def choice(name: str, choices: Sequence[str], default: str) -> str:
    """The variable `name`, one of `choices` (unset or empty: `default`).

    Example:
    >>> choice("ALBERT_TF_UNSET_EXAMPLE", ("auto", "float32"), "auto")
    'auto'
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if raw not in choices:
        raise UserError(f"{name}={raw!r}", fix=f"set it to one of {', '.join(choices)}")
    return raw
