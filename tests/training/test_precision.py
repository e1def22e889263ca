"""Tests for albert_tf.training.precision."""

import pytest

from albert_tf.training import precision
from albert_tf.training.precision import resolve_precision


@pytest.mark.parametrize("name", ["float32", "mixed_bfloat16", "mixed_float16"])
def test_explicit_precisions_pass_through(name):
    assert resolve_precision(name) == name


def test_auto_follows_the_cpu_matrix_units(monkeypatch):
    monkeypatch.setattr(precision, "cpu_has_amx", lambda: True)
    assert resolve_precision("auto") == "mixed_bfloat16"
    monkeypatch.setattr(precision, "cpu_has_amx", lambda: False)
    assert resolve_precision("auto") == "float32"


def test_unknown_precision_is_rejected():
    with pytest.raises(ValueError, match="choose one of"):
        resolve_precision("float8")
