"""Fixtures for the runtime's tests: no runtime environment variables set."""

from __future__ import annotations

import pytest

from albert_tf.config import AlbertConfig
from tests.conftest import TINY_ALBERT

RUNTIME_ENV = ("ALBERT_TF_FUSED_KERNELS", "ALBERT_TF_COMPILED_SERVING", "TF_ENABLE_ONEDNN_OPTS")


@pytest.fixture(autouse=True)
def no_runtime_environment(monkeypatch):
    """The runtime's variables unset, so that `auto` follows the machine (or a patched one)."""
    for name in RUNTIME_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def tiny_config() -> AlbertConfig:
    return AlbertConfig(**TINY_ALBERT)
