"""`--precision=auto`: decided by what the device is, never by a timing."""

import pytest

from albert_tf.runtime import machine
from albert_tf.training import precision
from albert_tf.training.precision import cpu_precision_choice, resolve_precision
from tests.runtime.test_machine import AMX_XEON, AVX2_EPYC, AVX512_BF16_EPYC


@pytest.fixture
def unpinned(monkeypatch):
    """`auto` not pinned by the test suite's ALBERT_TF_PRECISION, nor capped by settings."""
    for name in ("ALBERT_TF_PRECISION", "TF_ENABLE_ONEDNN_OPTS", "ONEDNN_MAX_CPU_ISA"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("name", ["float32", "mixed_bfloat16", "mixed_float16"])
def test_explicit_precisions_pass_through(name):
    assert resolve_precision(name) == name


@pytest.mark.parametrize(
    ("flags", "jit_compile", "expected"),
    [
        (AVX2_EPYC, False, "float32"),
        # bf16 instructions without AMX: 1.7x on one Zen 4 machine, 0.5x on another.
        (AVX512_BF16_EPYC, False, "float32"),
        (AMX_XEON, False, "mixed_bfloat16"),
        (AMX_XEON, True, "float32"),  # XLA's CPU matmuls use no AMX.
    ],
)
def test_cpus_are_decided_by_their_instructions(
    unpinned, monkeypatch, flags, jit_compile, expected
):
    monkeypatch.setattr(machine, "cpu_flags", lambda: set(flags))
    assert resolve_precision("auto", jit_compile=jit_compile) == expected
    assert cpu_precision_choice(jit_compile, flags)["precision"] == expected


@pytest.mark.parametrize(
    ("name", "value"), [("TF_ENABLE_ONEDNN_OPTS", "0"), ("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_BF16")]
)
def test_amx_settings_that_keep_bf16_off_its_tiles_mean_float32(unpinned, monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    choice = cpu_precision_choice(flags=AMX_XEON)
    assert choice["precision"] == "float32" and "AMX, but" in choice["reason"]


def test_this_machine_gets_what_its_flags_say(unpinned):
    expected = "mixed_bfloat16" if "amx_bf16" in machine.cpu_flags() else "float32"
    assert resolve_precision("auto") in (expected, "mixed_bfloat16")  # A GPU would say bf16.
    assert cpu_precision_choice()["precision"] == expected


def test_auto_can_be_pinned(monkeypatch):
    monkeypatch.setenv("ALBERT_TF_PRECISION", "mixed_float16")
    assert resolve_precision("auto") == "mixed_float16"
    assert resolve_precision("float32") == "float32"
    monkeypatch.setenv("ALBERT_TF_PRECISION", "fast")
    with pytest.raises(ValueError, match="ALBERT_TF_PRECISION='fast'"):
        resolve_precision("auto")


def test_unknown_precision_is_rejected():
    with pytest.raises(ValueError, match="choose one of"):
        resolve_precision("float8")


def test_no_probe_and_no_cache_remain():
    assert not hasattr(precision, "probe_gemm_gflops")
