"""One text per call as one XLA program: the plain forward's outputs; batches keep the graph."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.export.task_export import model_forward
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.runtime.runtime import Runtime


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


def _compiled_branches(function) -> tuple[bool, bool] | bool:
    """Whether the traced graph compiles: (one row, other batches) where it routes by batch
    size, else one answer for every call."""
    graph = function.get_concrete_function().graph
    library = {f.signature.name: f for f in graph.as_graph_def().library.function}

    def compiles(name: str, seen: frozenset = frozenset()) -> bool:
        body = library[name]
        if body.attr["_XlaMustCompile"].b:
            return True
        called = {n.op for n in body.node_def if n.op in library}
        called |= {
            value.func.name
            for n in body.node_def
            for value in n.attr.values()
            if value.func.name in library
        }
        return any(compiles(c, seen | {name}) for c in called - seen)

    routes = [op for op in graph.get_operations() if op.type in ("If", "StatelessIf")]
    if not routes:
        calls = [
            op.get_attr("f").name
            for op in graph.get_operations()
            if op.type in ("PartitionedCall", "StatefulPartitionedCall")
        ]
        return any(compiles(name) for name in calls)
    [route] = routes
    return tuple(compiles(route.get_attr(b).name) for b in ("then_branch", "else_branch"))


@pytest.mark.parametrize("compiled", [False, True])
def test_the_served_forward_equals_the_model_in_both_forms(classifier, compiled):
    forward = model_forward(classifier, Runtime(compiled_serving=compiled))
    assert _compiled_branches(forward) == ((True, False) if compiled else False)
    for batch in (1, 3):
        inputs = _inputs(batch)
        np.testing.assert_allclose(
            forward(inputs).numpy(), classifier(inputs, training=False).numpy(), atol=2e-5
        )


def test_a_saved_model_serves_the_compiled_forward(classifier, tmp_path):
    module = tf.Module()
    module.serve = model_forward(classifier, Runtime(compiled_serving=True))
    module.weights = classifier.variables
    tf.saved_model.save(module, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    inputs = _inputs(1)
    np.testing.assert_allclose(
        loaded.serve(inputs).numpy(), classifier(inputs, training=False).numpy(), atol=2e-5
    )
    assert _compiled_branches(loaded.serve) is True  # Its branches sit in a called function.
