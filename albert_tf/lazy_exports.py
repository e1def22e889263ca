"""`lazy_exports`: a stage package's curated public names, imported on first use.

Every stage package (`albert_tf.data`, `.training`, `.export`, `.convert`, `.finetune`, ...)
lists its entry points in `__all__`. `models` and `tokenization` import theirs eagerly (the
Keras classes must be registered to load `.keras` files); the others resolve them on first
access (PEP 562 `__getattr__`), so `import albert_tf.data` stays free of TensorFlow, which the
data builder's worker processes rely on.

Example:
    >>> getattr_, dir_ = lazy_exports("example", {"dumps": "json"})
    >>> import json
    >>> getattr_("dumps") is json.dumps, dir_()
    (True, ['dumps'])
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(`__getattr__`, `__dir__`) of `package` for `exports`: public name -> its module."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(exports[name]), name)

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
