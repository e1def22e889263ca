"""Exported mixed-precision models store their weights in bfloat16, as graph constants, and
predict the same."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.finetune.classification.serving import export_classifier
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.runtime.serving_weights import serving_copy
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests.conftest import TINY_ALBERT

TEXTS = ["a gorgeous , witty film", "dull and far too long", ""]

pytestmark = pytest.mark.usefixtures("frozen_serving")


def _classifier(precision: str) -> AlbertClassifier:
    tf.keras.utils.set_random_seed(1)
    config = AlbertConfig(**TINY_ALBERT)
    return AlbertClassifier(AlbertEncoder(config, dtype=precision), 3, dtype=precision)


def test_float32_models_are_served_as_they_are():
    model = _classifier("float32")
    assert serving_copy(model) is model


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
@pytest.mark.parametrize("precision,stored", [("mixed_bfloat16", "bfloat16")])
def test_mixed_precision_export_stores_compute_dtype_and_predicts_the_same(
    precision, stored, tiny_model_file, tmp_path
):
    model = _classifier(precision)
    features = AlbertTextFeatures(tiny_model_file, 16)
    packed = features(tf.constant(TEXTS))
    expected = np.asarray(model(packed, training=False), np.float32)
    copy = serving_copy(model)
    assert {v.dtype for v in copy.weights} == {stored}
    assert {v.dtype for v in model.weights} == {"float32"}  # The trained model is untouched.
    np.testing.assert_allclose(np.asarray(copy(packed), np.float32), expected, atol=2e-2)

    export_dir = export_classifier(str(tmp_path / "export"), model, features, ("a", "b", "c"))
    served = tf.saved_model.load(export_dir)
    assert not [v for v in served.variables if v.dtype.is_floating]  # Weights are constants.
    assert _weight_constant_dtypes(served.signatures["classify_text"]) == {tf.as_dtype(stored)}
    logits = served.signatures["classify_text"](text_a=tf.constant(TEXTS))["logits"].numpy()
    np.testing.assert_allclose(logits, expected, atol=2e-2)
    assert (logits.argmax(-1) == expected.argmax(-1)).all()


def _weight_constant_dtypes(function) -> set[tf.DType]:
    """Dtypes of the floating constants with 16+ elements in `function` and what it calls."""
    library = function.graph.as_graph_def().library.function
    dtypes = set()
    for node in (node for f in library for node in f.node_def):
        if node.op == "Const":
            value = node.attr["value"].tensor
            elements = int(np.prod([d.size for d in value.tensor_shape.dim]))
            dtype = tf.as_dtype(value.dtype)
            if dtype.is_floating and elements >= 16:
                dtypes.add(dtype)
    return dtypes
