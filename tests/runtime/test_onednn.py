"""choose_onednn: TensorFlow's oneDNN rewrites decided before TensorFlow loads."""

from __future__ import annotations

import pytest

from albert_tf.errors import UserError
from albert_tf.runtime import machine, onednn

AVX2 = {"avx2", "fma", "sse4_2"}
FAST_ONEDNN = {"off": {"train": 1200.0, "serve": 300.0}, "on": {"train": 950.0, "serve": 250.0}}
SLOW_ONEDNN = {"off": {"train": 1000.0, "serve": 250.0}, "on": {"train": 1100.0, "serve": 260.0}}


@pytest.fixture
def avx2_machine(monkeypatch, tmp_path):
    """An AVX2-only CPU, no oneDNN settings, a private cache; returns the probe's calls."""
    for name in (onednn.TF_ENV, onednn.ENV):  # Set first, so that teardown restores them.
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(machine, "cpu_flags", lambda: set(AVX2))
    calls = []
    monkeypatch.setattr(onednn, "_probe", lambda value: calls.append(value) or {})
    return calls


def _timings(monkeypatch, avx2_machine, timings):
    def probe(value):
        avx2_machine.append(value)
        return timings["on" if value == "1" else "off"]

    monkeypatch.setattr(onednn, "_probe", probe)


def test_on_where_the_probe_measured_it_faster_and_cached(monkeypatch, avx2_machine):
    _timings(monkeypatch, avx2_machine, FAST_ONEDNN)
    assert "1.2" in onednn.choose_onednn()  # (1200 + 4 * 300) / (950 + 4 * 250) = 1.23
    assert onednn.os.environ[onednn.TF_ENV] == "1"
    assert avx2_machine == ["0", "1"]
    monkeypatch.delenv(onednn.TF_ENV)
    onednn.choose_onednn()
    assert avx2_machine == ["0", "1"]  # The cached timings, no second probe.
    assert onednn.os.environ[onednn.TF_ENV] == "1"


def test_default_kept_where_onednn_measured_slower(monkeypatch, avx2_machine):
    _timings(monkeypatch, avx2_machine, SLOW_ONEDNN)
    reason = onednn.choose_onednn()
    assert "oneDNN off" in reason and onednn.CHOICE == reason  # What runtime.json records.
    assert onednn.TF_ENV not in onednn.os.environ


def test_no_probe_where_tensorflow_enables_onednn_itself(monkeypatch, avx2_machine):
    for flag in ("avx512_bf16", "amx_tile", "avx512_vnni"):
        monkeypatch.setattr(machine, "cpu_flags", lambda flag=flag: AVX2 | {flag})
        assert "TensorFlow's default" in onednn.choose_onednn()
    assert avx2_machine == [] and onednn.TF_ENV not in onednn.os.environ


@pytest.mark.parametrize(
    "variable, value, expected",
    [
        (onednn.TF_ENV, "0", "0"),  # The user's own setting wins, whatever ALBERT_TF_ONEDNN says.
        (onednn.ENV, "1", "1"),
        (onednn.ENV, "0", None),  # TensorFlow's default: nothing set.
    ],
)
def test_settings_need_no_probe(monkeypatch, avx2_machine, variable, value, expected):
    monkeypatch.setenv(variable, value)
    if variable == onednn.TF_ENV:
        monkeypatch.setenv(onednn.ENV, "1")
    onednn.choose_onednn()
    assert onednn.os.environ.get(onednn.TF_ENV) == expected
    assert avx2_machine == []


def test_a_failed_probe_keeps_the_default(monkeypatch, avx2_machine):
    def fail(value):
        raise ValueError("TensorFlow did not start")

    monkeypatch.setattr(onednn, "_probe", fail)
    assert "did not run" in onednn.choose_onednn()
    assert onednn.TF_ENV not in onednn.os.environ


def test_a_bad_setting_is_a_user_error(monkeypatch, avx2_machine):
    monkeypatch.setenv(onednn.ENV, "maybe")
    with pytest.raises(UserError, match="ALBERT_TF_ONEDNN='maybe'.*1, 0 or auto"):
        onednn.choose_onednn()


@pytest.mark.slow  # Starts TensorFlow in a subprocess (~7 s).
def test_the_probe_times_both_shapes_in_a_subprocess():
    timings = onednn._probe("0", train_rows=64, serve_rows=16)
    assert set(timings) == {"train", "serve"}
    assert all(milliseconds > 0 for milliseconds in timings.values())
