"""The served forward compiled by XLA: the reference's outputs, per batch case as probed."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf import runtime
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.runtime import machine, probes
from albert_tf.runtime.compiled_serving import serving_cases
from albert_tf.runtime.frozen_weights import frozen_inference

# The serving forms this file does not test, held off; each test sets `compiled_serving`.
OTHERS_OFF = {"fused_kernels": "off", "frozen_serving": "off"}


@pytest.fixture(scope="module")
def classifier(tiny_config) -> AlbertClassifier:
    tf.keras.utils.set_random_seed(4)
    return AlbertClassifier(AlbertEncoder(tiny_config), 3)


def _inputs(batch: int, length: int = 12) -> dict[str, tf.Tensor]:
    rng = np.random.default_rng(batch)
    mask = np.ones((batch, length), np.int32)
    mask[-1, length // 2 :] = 0  # A padded row: the attention mask must be applied.
    return {
        "input_word_ids": tf.constant(rng.integers(5, 300, mask.shape), tf.int32),
        "input_mask": tf.constant(mask),
        "input_type_ids": tf.constant((rng.random(mask.shape) < 0.5).astype(np.int32)),
    }


def _compiled_branches(call) -> tuple[bool, bool] | bool:
    """Whether the served graph compiles: (one row, other batches) where it routes by batch
    size, else one answer for every call."""
    graph = call.get_concrete_function().graph
    library = {f.signature.name: f for f in graph.as_graph_def().library.function}

    def compiles(name: str, seen: frozenset = frozenset()) -> bool:
        function = library[name]
        if function.attr["_XlaMustCompile"].b:
            return True
        called = {n.op for n in function.node_def if n.op in library}
        called |= {
            value.func.name
            for n in function.node_def
            for value in n.attr.values()
            if value.func.name in library
        }
        return any(compiles(c, seen | {name}) for c in called - seen)

    routes = [op for op in graph.get_operations() if op.type in ("If", "StatelessIf")]
    calls = [
        op.get_attr("f").name
        for op in graph.get_operations()
        if op.type in ("PartitionedCall", "StatefulPartitionedCall")
    ]
    if not routes:
        return any(compiles(name) for name in calls)
    [route] = routes
    return tuple(compiles(route.get_attr(b).name) for b in ("then_branch", "else_branch"))


@pytest.mark.parametrize("frozen", ["off", "on"])
def test_the_compiled_forward_equals_the_reference(classifier, frozen):
    options = {**OTHERS_OFF, "frozen_serving": frozen, "compiled_serving": "on"}
    with runtime.configured(runtime.RuntimeOptions(**options)):
        call = frozen_inference(classifier)
    assert _compiled_branches(call) is True
    inputs = _inputs(3)
    np.testing.assert_allclose(
        call(inputs).numpy(), classifier(inputs, training=False).numpy(), atol=2e-5
    )


def _figures(one_row: float, batch: float) -> dict[str, tuple[float, float]]:
    """Probe figures: (compiled s, graph s) with the graph at 1 s, per case."""
    return dict(zip(serving_cases("float32"), ((one_row, 1.0), (batch, 1.0)), strict=True))


def _probed_call(classifier, monkeypatch, figures: dict):
    """`frozen_inference(classifier)` under a compiled-serving probe patched to `figures`."""
    monkeypatch.setattr(probes, "time_compiled_serving", lambda *args, **kwargs: figures)
    monkeypatch.setattr(machine, "has_accelerator", lambda: False)
    with runtime.configured(runtime.RuntimeOptions(**OTHERS_OFF)) as choices:
        assert choices["compiled_serving"].source == "probe"
        return frozen_inference(classifier)


@pytest.mark.parametrize(
    "one_row_faster,batch_faster,compiled",
    [
        (True, False, (True, False)),
        (False, True, (False, True)),
        (True, True, True),
        (False, False, False),
    ],
)
def test_each_batch_case_is_compiled_only_where_the_probe_found_it_faster(
    classifier, monkeypatch, one_row_faster, batch_faster, compiled
):
    figures = _figures(0.5 if one_row_faster else 2.0, 0.5 if batch_faster else 2.0)
    assert _compiled_branches(_probed_call(classifier, monkeypatch, figures)) == compiled


def test_a_case_compiled_only_a_little_faster_keeps_the_graph(classifier, monkeypatch):
    # Within the margin that pays for compiling each new input shape.
    assert _compiled_branches(_probed_call(classifier, monkeypatch, _figures(0.97, 2.0))) is False


def test_calls_routed_by_batch_size_serve_the_reference(classifier, monkeypatch):
    call = _probed_call(classifier, monkeypatch, _figures(0.5, 2.0))
    for batch in (1, 2):
        inputs = _inputs(batch)
        np.testing.assert_allclose(
            call(inputs).numpy(), classifier(inputs, training=False).numpy(), atol=2e-5
        )


def test_a_saved_model_serves_the_compiled_forward(classifier, tmp_path):
    options = {**OTHERS_OFF, "compiled_serving": "on"}
    with runtime.configured(runtime.RuntimeOptions(**options)):
        module = tf.Module()
        module.serve = frozen_inference(classifier)
        module.weights = classifier.variables
        tf.saved_model.save(module, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    inputs = _inputs(1)
    np.testing.assert_allclose(
        loaded.serve(inputs).numpy(), classifier(inputs, training=False).numpy(), atol=2e-5
    )
    assert _compiled_branches(loaded.serve) is True


def test_the_real_compiled_probe_times_one_row_and_a_batch(tiny_config):
    timings = probes.time_compiled_serving(config=tiny_config, length=8, rounds=1, repeats=1)
    assert set(timings) == set(serving_cases("float32"))
    assert all(fast > 0 and plain > 0 for fast, plain in timings.values())
