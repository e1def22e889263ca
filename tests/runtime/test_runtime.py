"""`Runtime`: decided by what the machine is, one convention for its settings, no state."""

from __future__ import annotations

import ast
import dataclasses
import json
import pathlib
import re

import pytest

from albert_tf.errors import UserError
from albert_tf.models.chains import PLAIN
from albert_tf.runtime import machine
from albert_tf.runtime.fused_kernels import FUSED_CHAINS
from albert_tf.runtime.runtime import Runtime, RuntimeOptions
from tests.runtime.test_machine import AMX_XEON, AVX2_EPYC, AVX512_BF16_EPYC, AVX512_SKYLAKE


def _on_cpu(monkeypatch, flags: set[str], accelerator: bool = False) -> None:
    """This process as a machine with `flags` (and an accelerator or not)."""
    monkeypatch.setattr(machine, "cpu_flags", lambda: set(flags))
    monkeypatch.setattr(machine, "has_accelerator", lambda: accelerator)


@pytest.mark.parametrize(
    ("flags", "onednn_setting", "compiled"),
    [
        (AVX2_EPYC, None, True),  # TensorFlow leaves oneDNN off: the program measured faster.
        (AVX512_SKYLAKE, None, True),
        (AVX2_EPYC, "1", False),  # oneDNN forced on: it measured no faster.
        (AVX512_BF16_EPYC, None, False),
        (AMX_XEON, None, False),
        (AMX_XEON, "0", True),
    ],
)
def test_auto_follows_the_cpu_and_tensorflows_onednn_rule(
    monkeypatch, flags, onednn_setting, compiled
):
    """Fused kernels on every CPU; compiled serving only where oneDNN's rewrites are off."""
    _on_cpu(monkeypatch, flags)
    if onednn_setting is not None:
        monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", onednn_setting)
    runtime = Runtime.for_machine()
    assert (runtime.fused_kernels, runtime.compiled_serving) == (True, compiled)
    assert runtime.chains is FUSED_CHAINS and Runtime.plain().chains is PLAIN


def test_two_machines_of_one_kind_decide_alike(monkeypatch):
    """Nothing is timed: the same flags and settings always give the same runtime."""
    _on_cpu(monkeypatch, AVX2_EPYC)
    decisions = {Runtime.for_machine() for _ in range(3)}
    assert decisions == {Runtime(fused_kernels=True, compiled_serving=True)}


def test_accelerators_run_the_plain_ops(monkeypatch):
    _on_cpu(monkeypatch, AVX2_EPYC, accelerator=True)
    assert Runtime.for_machine() == Runtime.plain()


@pytest.mark.parametrize(("value", "expected"), [("1", True), ("on", True), ("0", False)])
def test_flag_beats_environment_beats_machine(monkeypatch, value, expected):
    _on_cpu(monkeypatch, AVX512_BF16_EPYC)  # auto: off here.
    monkeypatch.setenv("ALBERT_TF_FUSED_KERNELS", value)
    assert RuntimeOptions().resolve().fused_kernels is expected
    assert RuntimeOptions(fused_kernels="off").resolve().fused_kernels is False
    reasons = dict(RuntimeOptions(compiled_serving="on").resolve().reasons)
    assert reasons == {
        "fused_kernels": "set by the environment",
        "compiled_serving": "set by the flag",
    }


def test_bad_settings_are_user_errors(monkeypatch):
    monkeypatch.setenv("ALBERT_TF_COMPILED_SERVING", "fast")
    with pytest.raises(UserError, match="ALBERT_TF_COMPILED_SERVING='fast'"):
        Runtime.for_machine()
    with pytest.raises(UserError, match="--fused_kernels='yes'"):
        RuntimeOptions(fused_kernels="yes")


def test_a_runtime_is_an_immutable_value(tmp_path):
    runtime = Runtime(fused_kernels=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        runtime.fused_kernels = False  # type: ignore[misc]
    assert runtime == Runtime(fused_kernels=True, reasons=(("fused_kernels", "why"),))
    recorded = json.loads(open(runtime.record(str(tmp_path))).read())
    assert recorded["forms"]["fused_kernels"] == {"on": True, "reason": "set in code"}
    assert recorded["machine"]["onednn"]["enabled"] == machine.onednn_enabled()


def _optional_runtimes(path: pathlib.Path) -> list[str]:
    """`file:line function` of each function in `path` with a `Runtime` parameter that has a
    default or may be None."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        defaulted = positional[len(positional) - len(args.defaults) :]
        defaulted += [a for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d]
        for arg in [*positional, *args.kwonlyargs]:
            annotation = "" if arg.annotation is None else ast.unparse(arg.annotation)
            if re.search(r"\bRuntime\b", annotation) and (arg in defaulted or "None" in annotation):
                found.append(f"{path}:{node.lineno} {node.name}")
    return found


def test_every_function_that_takes_a_runtime_requires_it():
    """The caller decides the forms (a command: its resolved flags), never a default: a
    `Runtime` parameter has no default and is never None anywhere in the package."""
    package = pathlib.Path(__file__).resolve().parents[2] / "albert_tf"
    assert [hit for path in sorted(package.rglob("*.py")) for hit in _optional_runtimes(path)] == []
