"""`lazy_exports`: a package's public names, each imported from its module on first use.

Every stage package (`albert_tf.data`, `.inputs`, `.training`, `.export`, `.convert`, ...)
lists its entry points in `__all__`. Where their modules load TensorFlow (or other slow
libraries), the package's `__init__.py` writes a literal `{name: module}` table instead of
imports, and this helper turns it into the PEP 562 module `__getattr__` and `__dir__`. So
`import albert_tf.inputs` loads no TensorFlow until one of its names is used, the data
builder's workers import only the `albert_tf.data` modules they run, and a command's `--help`
answers at once.

Example:
    >>> getattr_, dir_ = lazy_exports("albert_tf.data", {"MaskingOptions": ".masking"})
    >>> getattr_("MaskingOptions").__module__, dir_()
    ('albert_tf.data.masking', ['MaskingOptions'])
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(`__getattr__`, `__dir__`) of `package`, whose name `n` is imported from `homes[n]`.

    `homes` maps each public name to the module (relative to `package`, e.g. `".masking"`)
    that defines it.
    """
    public = sorted(homes)

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(homes[name], package), name)

    def __dir__() -> list[str]:
        return public

    return __getattr__, __dir__
