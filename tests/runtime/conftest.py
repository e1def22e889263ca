"""Fixtures for the runtime's tests: a private probe cache, and the plain reference after each test.

A test that wants a fast form asks for it (`fused_kernels`, `frozen_serving`, or
`runtime.configured(...)` itself); whatever it configured is undone, so that every other test,
in this folder or another, runs the plain reference as library code does.
"""

from __future__ import annotations

import dataclasses

import pytest

from albert_tf import runtime
from albert_tf.config import AlbertConfig
from albert_tf.runtime.options import RuntimeOptions, environment_variable
from tests.conftest import TINY_ALBERT

# Each form's environment variable (`RuntimeOptions` field metadata).
RUNTIME_ENV = tuple(environment_variable(form.name) for form in dataclasses.fields(RuntimeOptions))


@pytest.fixture(autouse=True)
def isolated_runtime(monkeypatch, tmp_path_factory):
    """No runtime environment variables, a private probe cache; the runtime reset afterwards."""
    for name in RUNTIME_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    runtime.reset()
    yield
    runtime.reset()


@pytest.fixture
def fused_kernels():
    """The fused XLA kernels in every dtype; the serving forms off."""
    with runtime.configured(
        runtime.RuntimeOptions(fused_kernels="on", frozen_serving="off", compiled_serving="off")
    ):
        yield


@pytest.fixture
def frozen_serving():
    """Serving on constant weights, held to the plain reference (no fused kernels, no XLA)."""
    with runtime.configured(
        runtime.RuntimeOptions(fused_kernels="off", frozen_serving="on", compiled_serving="off")
    ):
        yield


@pytest.fixture(scope="session")
def tiny_config() -> AlbertConfig:
    return AlbertConfig(**TINY_ALBERT)
