"""The one use of tensorflow-text's private API: these fail loudly when tensorflow-text changes.

If tensorflow-text renames `SentencepieceTokenizer._model_resource` or its generated
`sentencepiece_op`, or fixes b/318839908 (its own resource then survives the kernel cache), a
test here fails and says what to do with `albert_tf/tokenization/shared_sentencepiece.py`.
"""

from __future__ import annotations

import keras
import pytest
import tensorflow as tf
import tensorflow_text as tf_text

from albert_tf.tokenization import shared_sentencepiece
from albert_tf.tokenization.shared_sentencepiece import shared_sentencepiece_tokenizer

TEXTS = ["the cat sat", "", "a [MASK] b"]


@pytest.fixture(scope="module")
def model_bytes(small_model_file) -> bytes:
    with open(small_model_file, "rb") as handle:
        return handle.read()


def test_the_private_names_it_replaces_still_exist(model_bytes):
    plain = tf_text.SentencepieceTokenizer(model=model_bytes, out_type=tf.int32)
    resource = getattr(plain, shared_sentencepiece.MODEL_RESOURCE_ATTRIBUTE, None)
    assert isinstance(resource, tf.saved_model.experimental.TrackableResource), (
        f"tensorflow-text {tf_text.__version__} moved the model resource: update "
        "shared_sentencepiece.py"
    )
    tokenizer = shared_sentencepiece_tokenizer(model_bytes)
    assert getattr(tokenizer, shared_sentencepiece.MODEL_RESOURCE_ATTRIBUTE) is not resource
    assert tokenizer.tokenize(TEXTS).to_list() == plain.tokenize(TEXTS).to_list()


def test_tensorflow_texts_own_resource_still_dies_with_the_kernel_cache(model_bytes):
    plain = tf_text.SentencepieceTokenizer(model=model_bytes, out_type=tf.int32)
    plain.tokenize(TEXTS)
    keras.utils.set_random_seed(0)  # Clears the eager kernel cache.
    try:
        plain.tokenize(TEXTS)
    except tf.errors.NotFoundError:
        return
    pytest.fail(
        f"tensorflow-text {tf_text.__version__} fixed b/318839908: use its tokenizer as it is "
        "and remove shared_sentencepiece.py"
    )


def test_the_shared_resource_outlives_the_kernel_cache(model_bytes):
    tokenizer = shared_sentencepiece_tokenizer(model_bytes)
    expected = tokenizer.tokenize(TEXTS).to_list()
    keras.utils.set_random_seed(0)
    assert tokenizer.tokenize(TEXTS).to_list() == expected
