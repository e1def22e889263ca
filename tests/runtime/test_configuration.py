"""`albert_tf.runtime.configure`: options > environment > auto; probes, their cache; records."""

from __future__ import annotations

import dataclasses
import json
import random

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf import runtime
from albert_tf.errors import UserError
from albert_tf.models import AlbertClassifier, AlbertEncoder, forms
from albert_tf.runtime import configuration, fused_kernels, machine, probes
from albert_tf.runtime.frozen_weights import frozen_inference, frozen_serving_enabled
from albert_tf.runtime.options import requested

CHAINS = ("bias_activation", "residual_layer_norm", "scaled_masked_softmax")


def _chain_timings(fast_in: set[str]) -> dict[str, tuple[float, float]]:
    """Probe figures where the fused form is faster exactly in `fast_in`: "<chain>/<dtype>" at
    every probed size, "<chain>/<dtype>/<size>" at that one."""
    return {
        f"{chain}/{dtype}/{size}": (
            (1.0, 2.0) if {f"{chain}/{dtype}", f"{chain}/{dtype}/{size}"} & fast_in else (2.0, 1.0)
        )
        for chain in CHAINS
        for dtype in ("float32", "bfloat16")
        for size in fused_kernels.PROBED_TOKENS
    }


@pytest.fixture
def probed(monkeypatch):
    """The probes patched: returns the figures to report and counts their calls."""
    figures = {
        "fused_kernels": _chain_timings({"bias_activation/float32"}),
        "frozen_serving": {"float32": (1.0, 3.0)},
        "compiled_serving": {"float32/batch_1": (1.0, 2.0), "float32/batch_8": (2.0, 1.0)},
    }
    calls = dict.fromkeys(figures, 0)

    def patched(form):
        def probe(*args, **kwargs):
            calls[form] += 1
            return figures[form]

        return probe

    monkeypatch.setattr(probes, "time_fused_chains", patched("fused_kernels"))
    monkeypatch.setattr(probes, "time_frozen_serving", patched("frozen_serving"))
    monkeypatch.setattr(probes, "time_compiled_serving", patched("compiled_serving"))
    monkeypatch.setattr(machine, "has_accelerator", lambda: False)
    return figures, calls


def test_nothing_configured_runs_the_plain_reference(tiny_config):
    assert not frozen_serving_enabled()
    assert all(forms.installed(slot) is None for slot in forms.SLOTS)
    model = AlbertClassifier(AlbertEncoder(tiny_config), 2)
    graph = frozen_inference(model).get_concrete_function().graph
    assert graph.variables  # Served from variables.
    assert runtime.describe()["configured"] is False


def test_options_beat_the_environment_which_beats_auto(monkeypatch, probed):
    _, calls = probed
    monkeypatch.setenv("ALBERT_TF_FUSED_KERNELS", "0")
    monkeypatch.setenv("ALBERT_TF_FROZEN_SERVING", "1")
    choices = runtime.configure(runtime.RuntimeOptions(fused_kernels="on"))
    assert choices["fused_kernels"].enabled and choices["fused_kernels"].source == "option"
    assert choices["frozen_serving"].enabled
    assert choices["frozen_serving"].source == "environment"
    assert calls == {"fused_kernels": 0, "frozen_serving": 0, "compiled_serving": 1}
    monkeypatch.delenv("ALBERT_TF_FROZEN_SERVING")
    choices = runtime.configure(runtime.RuntimeOptions())
    assert not choices["fused_kernels"].enabled  # The environment's 0.
    assert choices["frozen_serving"].source == "probe" and calls["frozen_serving"] == 1


@pytest.mark.parametrize("value", ["yes", "2"])
def test_a_bad_environment_value_or_option_is_a_user_error(monkeypatch, value):
    monkeypatch.setenv("ALBERT_TF_FROZEN_SERVING", value)
    with pytest.raises(UserError, match="ALBERT_TF_FROZEN_SERVING"):
        requested(runtime.RuntimeOptions(), "frozen_serving")
    with pytest.raises(UserError, match="fused_kernels='fast'"):
        runtime.RuntimeOptions(fused_kernels="fast")


def test_the_first_configure_decides_for_the_process(probed):
    first = runtime.configure(runtime.RuntimeOptions(frozen_serving="off"))
    assert runtime.configure() == first  # An entry point's later call keeps it.
    assert not runtime.configure(runtime.RuntimeOptions(frozen_serving="off"))[
        "frozen_serving"
    ].enabled


def test_accelerators_are_decided_by_what_they_are(monkeypatch, probed):
    _, calls = probed
    monkeypatch.setattr(machine, "has_accelerator", lambda: True)
    choices = runtime.configure()
    assert not choices["fused_kernels"].enabled  # XLA fuses the plain ops there.
    assert choices["frozen_serving"].enabled
    assert not choices["compiled_serving"].enabled
    assert {choice.source for choice in choices.values()} == {"accelerator"}
    assert set(calls.values()) == {0}


def test_a_fast_form_is_never_chosen_where_the_probe_found_it_slower(probed):
    figures, _ = probed
    figures["fused_kernels"] = _chain_timings(set())
    figures["frozen_serving"] = {"float32": (3.0, 1.0)}
    figures["compiled_serving"] = {"float32/batch_1": (3.0, 1.0), "float32/batch_8": (3.0, 1.0)}
    choices = runtime.configure()
    assert not any(choice.enabled for choice in choices.values())
    assert all(forms.installed(slot) is None for slot in forms.SLOTS)
    assert not frozen_serving_enabled()
    assert "plain reference was faster" in choices["frozen_serving"].reason


def test_frozen_serving_needs_every_probed_dtype_faster(probed):
    figures, _ = probed
    figures["frozen_serving"] = {"float32": (1.0, 2.0), "bfloat16": (2.0, 1.0)}
    assert not runtime.configure()["frozen_serving"].enabled


def _xla_in(function, *args) -> bool:
    graph = tf.function(function).get_concrete_function(*args).graph.as_graph_def()
    return any(f.attr["_XlaMustCompile"].b for f in graph.library.function)


def test_fused_chains_run_only_in_the_dtypes_they_won(probed):
    figures, _ = probed
    figures["fused_kernels"] = _chain_timings(
        {"bias_activation/float32", "residual_layer_norm/bfloat16"}
    )
    choice = runtime.configure()["fused_kernels"]
    assert choice.enabled and choice.source == "probe"
    x32 = tf.ones([2, 8])
    x16 = tf.cast(x32, tf.bfloat16)

    def gelu(x):
        return forms.bias_activation(x, None, "gelu")

    def norm(x):
        return forms.residual_layer_norm(x, x, tf.ones([8]), tf.zeros([8]), 1e-12)

    assert _xla_in(gelu, x32) and not _xla_in(gelu, x16)
    assert _xla_in(norm, x16) and not _xla_in(norm, x32)
    assert _xla_in(norm, tf.cast(x32, tf.float16))  # float16 follows bfloat16.
    assert not _xla_in(lambda s: forms.scaled_masked_softmax(s, 0.5), x32)
    runtime.reset()
    assert not _xla_in(gelu, x32)  # Back to the reference.


def test_fused_chains_run_only_at_the_sizes_they_won(probed):
    figures, _ = probed
    large = fused_kernels.PROBED_TOKENS[-1]
    figures["fused_kernels"] = _chain_timings({f"residual_layer_norm/float32/{large}"})
    runtime.configure()

    def norm(x):
        return forms.residual_layer_norm(x, x, tf.ones([8]), tf.zeros([8]), 1e-12)

    assert _xla_in(norm, tf.ones([large // 128, 128, 8]))  # A fine-tuning batch.
    assert not _xla_in(norm, tf.ones([2, 8]))
    assert not _xla_in(norm, tf.TensorSpec([None, None, 8]))  # Served: unknown, the smallest.


def test_the_softmax_size_counts_positions_not_heads(probed):
    figures, _ = probed
    figures["fused_kernels"] = _chain_timings(
        {f"scaled_masked_softmax/float32/{fused_kernels.PROBED_TOKENS[0]}"}
    )
    runtime.configure()

    def softmax(scores):
        return forms.scaled_masked_softmax(scores, 0.5)

    assert _xla_in(softmax, tf.ones([1, 12, 128, 128]))  # 128 positions, not 12 * 128.
    assert not _xla_in(softmax, tf.ones([32, 12, 128, 128]))


def test_probe_figures_are_cached_per_machine(probed, tmp_path, monkeypatch):
    figures, calls = probed
    runtime.configure()
    runtime.reset()  # As a new process would start.
    assert runtime.configure()["fused_kernels"].source == "cached probe"
    assert set(calls.values()) == {1}
    # Other oneDNN settings are another machine for the probes.
    runtime.reset()
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    assert runtime.configure()["fused_kernels"].source == "probe"
    assert set(calls.values()) == {2}


def test_a_failing_probe_leaves_the_reference_and_is_not_cached(probed, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no XLA here")

    monkeypatch.setattr(probes, "time_fused_chains", broken)
    choice = runtime.configure()["fused_kernels"]
    assert not choice.enabled and choice.source == "probe failed"
    assert "no XLA here" in choice.reason
    figures, _ = probed
    monkeypatch.setattr(probes, "time_fused_chains", lambda: figures["fused_kernels"])
    runtime.reset()
    assert runtime.configure()["fused_kernels"].source == "probe"


def test_describe_and_record_say_what_was_chosen_and_why(probed, tmp_path):
    runtime.configure(runtime.RuntimeOptions(frozen_serving="off"))
    path = runtime.record(str(tmp_path))
    assert path == str(tmp_path / "runtime.json")
    recorded = json.loads((tmp_path / "runtime.json").read_text())
    assert recorded == json.loads(json.dumps(runtime.describe()))
    fused = recorded["forms"]["fused_kernels"]
    assert fused["enabled"] and fused["source"] == "probe"
    small = fused_kernels.PROBED_TOKENS[0]
    assert fused["cases"][f"bias_activation/float32/{small}"] == {
        "fast_ms": 1000.0,
        "plain_ms": 2000.0,
        "plain_over_fast": 2.0,
        "fast_form_kept": True,
    }
    assert not fused["cases"][f"bias_activation/bfloat16/{small}"]["fast_form_kept"]
    assert recorded["forms"]["frozen_serving"] == {
        "enabled": False,
        "source": "option",
        "reason": "set by RuntimeOptions",
    }
    assert recorded["machine"]["tensorflow"] == tf.__version__


def test_configured_restores_what_was_in_force(probed):
    with runtime.configured(runtime.RuntimeOptions(fused_kernels="on", frozen_serving="on")):
        assert frozen_serving_enabled()
        assert forms.installed("bias_activation") is not None
    assert not frozen_serving_enabled()
    assert forms.installed("bias_activation") is None
    runtime.configure(runtime.RuntimeOptions(fused_kernels="off", frozen_serving="on"))
    with runtime.configured(runtime.RuntimeOptions(frozen_serving="off")):
        assert not frozen_serving_enabled()
    assert frozen_serving_enabled()


@pytest.mark.slow  # Compiles each chain's XLA kernels, forward and backward (~5 s).
def test_the_real_fused_probe_times_each_chain_in_each_dtype_and_size():
    timings = probes.time_fused_chains(tokens=(128, 256), rounds=1, repeats=1)
    expected = {
        f"{chain}/{dtype}/{size}"
        for chain in fused_kernels.FUSED_CHAINS
        for dtype in ("float32", "bfloat16")
        for size in (128, 256)
    }
    assert set(timings) == expected
    assert all(fast > 0 and plain > 0 for fast, plain in timings.values())


def test_the_real_serving_probe_times_frozen_against_variables(tiny_config):
    timings = probes.time_frozen_serving(config=tiny_config, length=8, rounds=1, repeats=1)
    assert set(timings) == {"float32/batch_1", "float32/batch_8"}
    assert all(frozen > 0 and variables > 0 for frozen, variables in timings.values())


def _next_layer_names() -> list[str]:
    """Names Keras gives new unnamed layers of the kinds an encoder holds (each call moves them)."""
    kinds = (keras.layers.Dense, keras.layers.LayerNormalization, keras.layers.Dropout)
    return [kind(1).name if kind is not keras.layers.Dropout else kind(0.1).name for kind in kinds]


def _successor(name: str) -> str:
    stem, _, number = name.rpartition("_")
    return f"{stem}_{int(number) + 1}" if number.isdigit() else f"{name}_1"


def test_probes_leave_random_state_and_layer_names_alone(tiny_config):
    keras.utils.set_random_seed(0)
    names = _next_layer_names()
    state, numpy_state = random.getstate(), np.random.get_state()[1].copy()
    probes.time_frozen_serving(config=tiny_config, length=8, rounds=1, repeats=1)
    assert random.getstate() == state
    np.testing.assert_array_equal(np.random.get_state()[1], numpy_state)
    assert _next_layer_names() == [_successor(name) for name in names]


def test_configuration_module_lists_every_option_as_a_form():
    fields = [field.name for field in dataclasses.fields(runtime.RuntimeOptions)]
    assert [form.name for form in configuration.FORMS] == fields
