"""`lazy_exports`: a stage package's curated public names, imported on first use.

Every stage package (`albert_tf.data`, `.training`, `.export`, `.convert`, `.finetune`, ...)
lists its entry points in `__all__`. `models` and `tokenization` import theirs eagerly (the
Keras classes must be registered to load `.keras` files); the others resolve them on first
access (PEP 562 `__getattr__`): the module of the package that defines the name at its top
level is found by reading the package's files (no import), then imported. So
`import albert_tf.data` stays free of TensorFlow, which the data builder's workers rely on.

Example:
    >>> getattr_, dir_ = lazy_exports("albert_tf.data", ["MaskingOptions"])
    >>> getattr_("MaskingOptions").__module__, dir_()
    ('albert_tf.data.masking', ['MaskingOptions'])
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import os
from collections.abc import Callable, Iterable
from typing import Any


@functools.cache
def _top_level_names(package: str) -> dict[str, str]:
    """Name -> module of `package` (direct modules) that defines it at its top level."""
    directory = os.path.dirname(importlib.util.find_spec(package).origin)
    homes: dict[str, str] = {}
    for file_name in sorted(os.listdir(directory)):
        if not file_name.endswith(".py") or file_name == "__init__.py":
            continue
        with open(os.path.join(directory, file_name), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        module = f"{package}.{file_name[:-3]}"
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                homes.setdefault(node.name, module)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        homes.setdefault(target.id, module)
    return homes


def lazy_exports(
    package: str, names: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(`__getattr__`, `__dir__`) of `package`, whose public `names` load on first use."""
    public = sorted(names)

    def __getattr__(name: str) -> Any:
        if name not in public:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        home = _top_level_names(package).get(name)
        if home is None:
            raise AttributeError(f"{package}.__all__ lists {name!r}, which no module defines")
        return getattr(importlib.import_module(home), name)

    def __dir__() -> list[str]:
        return public

    return __getattr__, __dir__
