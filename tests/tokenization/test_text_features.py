"""`AlbertTextFeatures`: raw strings -> packed features, eager, in tf.data, after a round trip."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.tokenization.text_features import AlbertTextFeatures
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from tests.tokenization.test_input_packer import original_pack

TEXTS_A = ["The quick brown fox.", "Café [MASK] naïve", "", "a " * 40]
TEXTS_B = ["jumps over the lazy dog", "", "only b", "b " * 3]


def test_matches_python_tokenizer_and_original_packing(tiny_model_file):
    features = AlbertTextFeatures(tiny_model_file, seq_length=16)
    tokenizer = AlbertTokenizer(tiny_model_file)
    packed = features([tf.constant(TEXTS_A), tf.constant(TEXTS_B)])
    expected = [
        original_pack(tokenizer.encode(a), tokenizer.encode(b), 16)
        for a, b in zip(TEXTS_A, TEXTS_B, strict=True)
    ]
    for column, name in enumerate(("input_word_ids", "input_mask", "input_type_ids")):
        assert packed[name].numpy().tolist() == [row[column] for row in expected], name
    single = features(tf.constant(TEXTS_A))
    assert single["input_type_ids"].numpy().max() == 0
    for name, tensor in features([TEXTS_A, TEXTS_B]).items():  # Python strings too.
        assert tensor.numpy().tolist() == packed[name].numpy().tolist(), name
    assert features.vocab_size == tokenizer.vocab_size


@pytest.mark.slow  # Over 5 s: traces the featurizer in tf.data.
def test_in_tf_data_and_after_config_round_trip(tiny_model_file):
    features = AlbertTextFeatures(tiny_model_file, seq_length=12, do_lower_case=True)
    dataset = tf.data.Dataset.from_tensor_slices((TEXTS_A, TEXTS_B)).batch(3)
    batches = list(dataset.map(lambda a, b: features([a, b])))
    assert batches[0]["input_word_ids"].shape == (3, 12)
    assert batches[0]["input_word_ids"].dtype == tf.int32
    eager = features([tf.constant(TEXTS_A), tf.constant(TEXTS_B)])["input_word_ids"]
    from_data = np.concatenate([batch["input_word_ids"] for batch in batches])
    np.testing.assert_array_equal(from_data, eager)

    # The config carries no model bytes (they travel as a .keras asset); set them back.
    restored = AlbertTextFeatures.from_config(features.get_config())
    assert restored.seq_length == 12 and restored.do_lower_case
    restored.tokenizer.set_proto(tiny_model_file)
    np.testing.assert_array_equal(
        restored([tf.constant(TEXTS_A), tf.constant(TEXTS_B)])["input_word_ids"], eager
    )
