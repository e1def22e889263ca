"""The LiteRT tests' tiny models, and their Keras outputs to compare with."""

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.models import AlbertEncoder
from albert_tf.models.classifier import AlbertClassifier
from tests.conftest import TINY_ALBERT

SEQ_LENGTH = 24
FEATURES = ("input_word_ids", "input_mask", "input_type_ids")


@pytest.fixture(scope="module")
def lt_encoder() -> AlbertEncoder:
    tf.keras.utils.set_random_seed(0)
    return AlbertEncoder(AlbertConfig(**TINY_ALBERT))


@pytest.fixture(scope="module")
def lt_classifier(lt_encoder) -> AlbertClassifier:
    model = AlbertClassifier(lt_encoder, num_outputs=3)
    # A non-zero head bias, so that a model that dropped it would fail the comparison.
    model.head.bias.assign([0.5, -0.25, 0.1])
    return model


def keras_outputs(model, features, outputs) -> dict[str, np.ndarray]:
    """`outputs` of the Keras `model` on `features` (name -> array), as NumPy arrays."""
    tensors = {name: tf.constant(value) for name, value in features.items()}
    return {k: np.asarray(v) for k, v in outputs(model(tensors, training=False)).items()}
