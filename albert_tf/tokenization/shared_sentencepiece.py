"""`shared_sentencepiece_tokenizer`: tensorflow-text's SentencePiece tokenizer on a model
resource that survives clearing TensorFlow's eager kernel cache.

tensorflow-text creates the model resource private to the eager kernel that made it (its TODO
b/318839908), so clearing the eager kernel cache, as `keras.utils.set_random_seed` does,
deletes it: every later call of a tokenizer built before raises "Resource ... does not exist".
No public argument names the resource, so this module, the one place albert_tf reaches into
tensorflow-text's private API, swaps in a resource created under a name shared by the model
bytes (the same bytes, the same name, the same model), which outlives the kernel. In a graph or
a SavedModel the resource is a tracked capture as before.

`tests/tokenization/test_shared_sentencepiece.py` fails loudly when tensorflow-text renames
either private name it uses (`SentencepieceTokenizer._model_resource`, the generated
`sentencepiece_op`) or fixes the bug (then this module can go).

Example:
    >>> tokenizer = shared_sentencepiece_tokenizer(open(spm_model, "rb").read())
    >>> tokenizer.tokenize(["hello world"]).shape.as_list()
    [1, None]
"""

from __future__ import annotations

import hashlib

import tensorflow as tf
import tensorflow_text as tf_text
from tensorflow_text.python.ops.sentencepiece_tokenizer import (
    gen_sentencepiece_tokenizer as _SENTENCEPIECE_OPS,
)

# The private attribute of `tf_text.SentencepieceTokenizer` holding its model resource.
MODEL_RESOURCE_ATTRIBUTE = "_model_resource"


class _SharedSentencepieceModel(tf.saved_model.experimental.TrackableResource):
    """tensorflow-text's SentencePiece model resource, under a name shared by its bytes."""

    def __init__(self, model_bytes: bytes):
        super().__init__()
        self._model = model_bytes
        self._shared_name = "albert_tf_spm_" + hashlib.sha256(model_bytes).hexdigest()[:24]
        _ = self.resource_handle  # Created now, as tensorflow-text does.

    def _create_resource(self):
        return _SENTENCEPIECE_OPS.sentencepiece_op(model=self._model, shared_name=self._shared_name)


def shared_sentencepiece_tokenizer(model_bytes: bytes) -> tf_text.SentencepieceTokenizer:
    """A `tf_text.SentencepieceTokenizer` (int32 ids) over `model_bytes`, on a shared resource."""
    tokenizer = tf_text.SentencepieceTokenizer(model=model_bytes, out_type=tf.int32)
    own = getattr(tokenizer, MODEL_RESOURCE_ATTRIBUTE, None)
    if not isinstance(own, tf.saved_model.experimental.TrackableResource):
        raise RuntimeError(
            f"tensorflow-text {tf_text.__version__}'s SentencepieceTokenizer has no "
            f"{MODEL_RESOURCE_ATTRIBUTE} resource any more: update "
            "albert_tf/tokenization/shared_sentencepiece.py to its new layout."
        )
    setattr(tokenizer, MODEL_RESOURCE_ATTRIBUTE, _SharedSentencepieceModel(model_bytes))
    return tokenizer
