"""SavedModel roots: each endpoint traced once, each weight stored once, TF1-style restore."""

from __future__ import annotations

import os

import keras
import numpy as np
import tensorflow as tf

from albert_tf.export.endpoints import export_endpoints
from albert_tf.export.saved_state import saved_root, saved_variables, tracing_for_save

SPEC = tf.TensorSpec([None, 3], tf.float32)


def _dense_pair():
    keras.utils.set_random_seed(0)
    first, second = keras.layers.Dense(4), keras.layers.Dense(2)
    second(first(tf.zeros([1, 3])))
    return first, second


def test_each_endpoint_is_traced_once_and_each_weight_stored_once(tmp_path):
    first, second = _dense_pair()
    traces = []

    def forward(x):
        traces.append("forward")
        return {"y": second(first(x))}

    def hidden(x):
        traces.append("hidden")
        return {"h": first(x)}

    export_dir = export_endpoints(
        str(tmp_path / "m"),
        {"forward": (forward, [SPEC]), "hidden": (hidden, [SPEC])},
        tracked=[first, second],
    )
    assert sorted(traces) == ["forward", "hidden"]
    stored = tf.train.list_variables(os.path.join(export_dir, "variables", "variables"))
    shapes = sorted(tuple(shape) for name, shape in stored if name.endswith("VARIABLE_VALUE"))
    assert shapes == sorted(tuple(w.shape) for w in [*first.weights, *second.weights])
    loaded = tf.saved_model.load(export_dir)
    x = tf.ones([2, 3])
    expected = second(first(x)).numpy()
    np.testing.assert_allclose(loaded.signatures["serving_default"](x=x)["y"], expected)
    np.testing.assert_allclose(loaded.forward(x)["y"], expected)
    assert len(loaded.trainable_variables) == 4


def _polymorphic_root(traces: list) -> tf.Module:
    """A root whose `call` has no input signature: its traces are made before the save."""
    first, second = _dense_pair()
    root = saved_root([first, second])

    @tf.function
    def call(x, training=False):
        traces.append(training)
        return second(first(x), training=training)

    root.call = call
    for training in (False, True):  # Named as the argument, as the save's lookup names it.
        call.get_concrete_function(
            tf.TensorSpec([None, 3], tf.float32, name="x"), training=training
        )
    return root


def test_traces_made_for_the_save_are_kept_by_it(tmp_path):
    # Fails loudly if TensorFlow's private save context no longer matches the save's own.
    outside = []
    tf.saved_model.save(_polymorphic_root(outside), str(tmp_path / "outside"))
    assert outside == [False, True, False, True]  # What tracing_for_save avoids.

    inside = []
    with tracing_for_save() as options:
        root = _polymorphic_root(inside)
    tf.saved_model.save(root, str(tmp_path / "inside"), options=options)
    assert inside == [False, True]
    loaded = tf.saved_model.load(str(tmp_path / "inside"))
    x = tf.ones([2, 3])
    np.testing.assert_allclose(loaded.call(x, training=True), root.call(x, training=True))


def test_a_tf1_session_restores_the_values_the_graph_reads(tmp_path):
    first, second = _dense_pair()
    export_dir = export_endpoints(
        str(tmp_path / "m"),
        {"forward": (lambda x: {"y": second(first(x))}, [SPEC])},
        tracked=[first, second],
    )
    x = np.ones([2, 3], np.float32)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta_graph = tf.compat.v1.saved_model.load(session, ["serve"], export_dir)
        signature = meta_graph.signature_def["forward"]
        feed = {signature.inputs["x"].name: x}
        y = session.run(signature.outputs["y"].name, feed)
    np.testing.assert_allclose(y, second(first(x)).numpy(), rtol=1e-6)


def test_tied_weights_are_tracked_once():
    first, _ = _dense_pair()
    assert len(saved_variables([first, first])) == 2
    assert all(isinstance(v, tf.Variable) for v in saved_variables([first]))
