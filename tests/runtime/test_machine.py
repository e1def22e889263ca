"""TensorFlow's oneDNN rules per CPU kind, as `albert_tf.runtime.machine` reads them.

The kernels a frozen forward really runs are checked against these rules on this machine and
under other oneDNN settings in `test_frozen_weights.py`; here each CPU kind's flags stand in for
the machines not at hand.
"""

from __future__ import annotations

import pytest

from albert_tf.runtime import machine

AMX_XEON = {"avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8", "amx_bf16"}
AVX512_BF16_EPYC = {"avx2", "avx512f", "avx512_vnni", "avx512_bf16"}
AVX512_SKYLAKE = {"avx2", "avx512f"}  # AVX-512 without VNNI or BF16.
AVX2_EPYC = {"avx2", "fma"}


@pytest.mark.parametrize(
    ("flags", "setting", "float32", "bfloat16"),
    [
        (AMX_XEON, "", True, True),
        (AVX512_BF16_EPYC, "", True, True),
        (AVX512_SKYLAKE, "", False, False),
        (AVX512_SKYLAKE, "1", True, True),
        (AVX2_EPYC, "", False, False),
        (AVX2_EPYC, "true", True, False),  # Forced on: oneDNN has no bf16 without AVX-512.
        (AMX_XEON, "0", False, False),
    ],
)
def test_which_dtypes_tensorflow_hands_to_onednn(flags, setting, float32, bfloat16):
    assert machine.onednn_runs("float32", flags, setting) is float32
    assert machine.onednn_runs("bfloat16", flags, setting) is bfloat16


def test_onednn_instruction_caps_do_not_change_what_tensorflow_hands_it(monkeypatch):
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)
    assert machine.onednn_runs("bfloat16", AMX_XEON)
    assert machine.kernel_settings()["ONEDNN_MAX_CPU_ISA"] == "AVX2"


def test_this_machine_is_described_with_its_flags_and_settings(monkeypatch):
    monkeypatch.setenv("TF_NUM_INTRAOP_THREADS", "2")
    described = machine.describe_machine()
    assert set(described["cpu_flags"]) <= machine.cpu_flags()
    assert described["onednn"]["enabled"] == machine.onednn_enabled()
    assert described["settings"]["TF_NUM_INTRAOP_THREADS"] == "2"
