"""Replays a SavedModel's TF Serving warm-up records the way the model server does.

`tensorflow_model_server` cannot be installed here; this stands in for its warm-up step: it
loads the SavedModel's `serve` graph into a TF1 session (TF Serving's SavedModelBundle), and
runs each `PredictRequest` of `assets.extra/tf_serving_warmup_requests` on its signature,
feeding the inputs and fetching the outputs by the tensor names of the `SignatureDef`. The
server refuses a request whose inputs differ from the signature's, and fails to load a model
whose warm-up fails, so both are checked.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401 (registers the ops the graphs use)

from albert_tf.export.warmup import read_warmup_requests


def replay_warmup_requests(saved_model_dir: str) -> dict[str, dict[str, np.ndarray]]:
    """Signature name -> its outputs on its warm-up request (exactly one per signature)."""
    requests = read_warmup_requests(saved_model_dir)
    results = {}
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta_graph = tf.compat.v1.saved_model.load(session, ["serve"], saved_model_dir)
        signatures = {name for name in meta_graph.signature_def if not name.startswith("__")}
        assert {r.model_spec.signature_name for r in requests} == signatures
        for request in requests:
            name = request.model_spec.signature_name or "serving_default"
            signature = meta_graph.signature_def[name]
            assert set(request.inputs) == set(signature.inputs), name
            feed = {
                signature.inputs[key].name: tf.make_ndarray(value)
                for key, value in request.inputs.items()
            }
            fetches = {key: info.name for key, info in signature.outputs.items()}
            assert name not in results, f"two warm-up requests for {name}"
            results[name] = session.run(fetches, feed)
    return results


def assert_replayed(saved_model_dir: str) -> dict[str, dict[str, np.ndarray]]:
    """Every signature has one request; every output has one row and finite values."""
    results = replay_warmup_requests(saved_model_dir)
    for name, outputs in results.items():
        for key, value in outputs.items():
            assert value.shape[0] == 1, (name, key, value.shape)
            if value.dtype.kind == "f":
                assert np.isfinite(value).all(), (name, key)
    return results
