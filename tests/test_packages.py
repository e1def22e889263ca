"""The `__init__.py` policy: every stage package exports a curated `__all__`."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

STAGES = (
    "albert_tf.tokenization",
    "albert_tf.data",
    "albert_tf.inputs",
    "albert_tf.models",
    "albert_tf.runtime",
    "albert_tf.training",
    "albert_tf.export",
    "albert_tf.export.litert",
    "albert_tf.export.onnx",
    "albert_tf.export.tfhub",
    "albert_tf.convert",
    "albert_tf.finetune",
    "albert_tf.finetune.classification",
    "albert_tf.finetune.span_qa",
    "albert_tf.finetune.multiple_choice",
    "albert_tf.finetune.tagging",
    "albert_tf.finetune.distillation",
    "albert_tf.experiments",
    "albert_tf.commands",
)


def test_every_stage_package_is_listed():
    folders = {p.parent for p in (REPO_ROOT / "albert_tf").rglob("__init__.py")}
    names = {".".join(f.relative_to(REPO_ROOT).parts) for f in folders} - {"albert_tf"}
    assert names == set(STAGES)


@pytest.mark.parametrize("package", STAGES)
def test_all_names_exist_and_resolve(package):
    module = importlib.import_module(package)
    assert module.__all__ and list(module.__all__) == sorted(module.__all__)
    assert set(module.__all__) <= set(dir(module))
    for name in module.__all__:  # A lazy package's table naming a wrong module fails here.
        assert getattr(module, name) is not None, f"{package}.{name}"
    with pytest.raises(AttributeError):
        module.not_a_public_name  # noqa: B018


def test_the_data_package_stays_free_of_tensorflow():
    # The builder's spawned workers import albert_tf.data; none of its modules may pull in TF.
    code = (
        "import importlib, pkgutil, sys, albert_tf.data as data; "
        "names = [m.name for m in pkgutil.iter_modules(data.__path__, 'albert_tf.data.')]; "
        "[importlib.import_module(name) for name in names]; "
        "[getattr(data, name) for name in data.__all__]; "
        "assert 'tensorflow' not in sys.modules, 'tensorflow imported'; "
        "print(len(names))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
