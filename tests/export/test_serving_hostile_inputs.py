"""The pretraining export's text signatures take hostile batches (see tests/hostile_text.py)."""

from __future__ import annotations

import keras
import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops of the SavedModel)

from albert_tf.config import AlbertConfig
from albert_tf.export.saved_model import export_saved_model
from albert_tf.models import AlbertEncoder, AlbertPretrainer
from tests.conftest import TINY_ALBERT
from tests.hostile_text import HOSTILE_BATCHES, assert_serves, hostile_batch


@pytest.fixture(scope="module")
def served(tmp_path_factory, tiny_model_file):
    keras.utils.set_random_seed(0)
    model = AlbertPretrainer(AlbertEncoder(AlbertConfig(**TINY_ALBERT)))
    export_dir = str(tmp_path_factory.mktemp("hostile") / "albert")
    export_saved_model(export_dir, model, tiny_model_file, seq_length=16, top_k=2)
    return tf.saved_model.load(export_dir)


@pytest.mark.slow  # Over 5 s: builds on a loaded SavedModel.
@pytest.mark.parametrize("name", list(HOSTILE_BATCHES))
def test_text_signatures_take_hostile_batches(served, name):
    batch = hostile_batch(name)
    assert_serves(served.signatures["encode_text"], batch, text_a=batch)
    assert_serves(served.signatures["encode_text_pair"], batch, text_a=batch, text_b=batch)
    assert_serves(served.signatures["fill_mask"], batch, text=batch)
