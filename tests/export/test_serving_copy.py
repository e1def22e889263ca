"""What an export serves: the plain chains, mixed-precision weights stored in bfloat16."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.export.serving_copy import serving_copy
from albert_tf.models import AlbertClassifier, AlbertEncoder, chains, use_chains
from albert_tf.runtime.fused_kernels import FUSED_CHAINS
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests.classifier_export import export_classifier_model
from tests.conftest import TINY_ALBERT

TEXTS = ["a gorgeous , witty film", "dull and far too long", ""]


def _classifier(precision: str) -> AlbertClassifier:
    tf.keras.utils.set_random_seed(1)
    config = AlbertConfig(**TINY_ALBERT)
    return AlbertClassifier(AlbertEncoder(config, dtype=precision), 3, dtype=precision)


def test_float32_models_are_served_as_they_are():
    model = _classifier("float32")
    assert serving_copy(model) is model


def test_a_model_trained_with_fused_chains_is_served_by_a_plain_copy():
    model = use_chains(_classifier("float32"), FUSED_CHAINS)
    copy = serving_copy(model)
    assert copy is not model
    assert {layer.chains for layer in chains.chain_layers(copy)} == {chains.PLAIN}
    assert {layer.chains for layer in chains.chain_layers(model)} == {FUSED_CHAINS}
    for served, trained in zip(copy.weights, model.weights, strict=True):
        np.testing.assert_array_equal(served.numpy(), trained.numpy())


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

    export_dir = export_classifier_model(str(tmp_path / "export"), model, features, ("a", "b", "c"))
    served = tf.saved_model.load(export_dir)
    assert {v.dtype for v in served.variables if v.dtype.is_floating} == {tf.as_dtype(stored)}
    logits = served.signatures["classify_text"](text_a=tf.constant(TEXTS))["logits"].numpy()
    np.testing.assert_allclose(logits, expected, atol=2e-2)
    assert (logits.argmax(-1) == expected.argmax(-1)).all()
