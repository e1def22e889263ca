"""`AlbertTextTokenizer`: in-graph ALBERT tokenization as a Keras layer.

Strings -> normalized strings (`normalize_text_tf`) -> tensorflow-text SentencePiece ids, with the
same post-processing as `AlbertTokenizer.encode` (a bare "▁" piece right before a special token is
dropped). Works eagerly, inside `tf.data` and inside a `tf.function`/SavedModel: the model bytes
are a constant of the graph, owned by tensorflow-text's tracked SentencePiece resource (under a
name shared by the bytes, so that clearing the eager kernel cache, as seeding does, keeps it:
`shared_sentencepiece`). Takes a `tf.string` tensor, or Python strings.

Saving: like keras-hub's SentencePieceTokenizer, `get_config` does not carry the model bytes
(`proto` is None there); `.keras` archives carry them as an asset (`save_assets`/`load_assets`).

Example:
    >>> layer = AlbertTextTokenizer(proto=spm_model)
    >>> layer(tf.constant(["Hello [MASK] world", ""]))
    <tf.RaggedTensor [[...], []]>
"""

from __future__ import annotations

import os
from typing import Any

import keras
import tensorflow as tf
import tensorflow_text as tf_text

from albert_tf.tokenization.model_proto import (
    CLS_ID,
    MASK_ID,
    SEP_ID,
    UNK_ID,
    albert_model_proto_from_bytes,
    load_albert_model_proto,
)
from albert_tf.tokenization.normalize import normalize_text_tf
from albert_tf.tokenization.ragged_rows import keep_flat
from albert_tf.tokenization.shared_sentencepiece import shared_sentencepiece_tokenizer

_ASSET_FILE = "albert_sentencepiece.model"
_SPECIAL_IDS = (CLS_ID, SEP_ID, MASK_ID)


def as_string_tensor(texts):
    """`texts` as a `tf.string` tensor, unless it is a tensor (or a symbolic `KerasTensor`).

    Keras passes only tensors positionally to a layer's `call`; the text layers convert
    Python strings (a list of them) here, before Keras checks.
    """
    if tf.is_tensor(texts) or isinstance(texts, keras.KerasTensor):
        return texts
    return tf.convert_to_tensor(texts, dtype=tf.string)


def drop_space_before_special(
    values: tf.Tensor, splits: tf.Tensor, space_id: int
) -> tuple[tf.Tensor, tf.Tensor]:
    """Flat piece ids [N] and their row splits [B + 1] without each bare "▁" (`space_id`)
    directly followed, in the same row, by a special token: `AlbertTokenizer`'s rule.

    Dense ops only (`ragged_rows.keep_flat`): `tf.ragged.boolean_mask` would trace ~200 ops
    into every featurizer graph, and LiteRT (`export/litert/text.py`) runs these as builtins.
    """
    count = tf.shape(values, out_type=splits.dtype)[0]
    next_values = tf.concat([values[1:], tf.constant([-1], values.dtype)], axis=0)
    special = tf.constant(_SPECIAL_IDS, values.dtype)
    next_is_special = tf.reduce_any(tf.equal(next_values[:, None], special[None, :]), axis=1)
    # The next piece belongs to the same row unless position + 1 is a row end.
    row_end_marks = tf.scatter_nd(splits[1:, None], tf.ones_like(splits[1:]), [count + 1])
    is_row_end = row_end_marks[1:] > 0
    drop = tf.equal(values, space_id) & next_is_special & tf.logical_not(is_row_end)
    return keep_flat(values, splits, tf.logical_not(drop))


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertTextTokenizer(keras.layers.Layer):
    """Keras layer: `tf.string` [N] -> `tf.RaggedTensor` int32 [N, None] of ALBERT piece ids.

    Args:
        proto: path of a `.model` file, or its serialized bytes; validated for the ALBERT id
            layout. None (only when loading a `.keras` archive) until `load_assets` sets it.
        do_lower_case: lowercase while normalizing; must match how the model was trained.
        **kwargs: `keras.layers.Layer` arguments (name, ...).
    """

    def __init__(self, proto: str | bytes | None = None, do_lower_case: bool = True, **kwargs):
        kwargs.setdefault("dtype", "int32")
        kwargs["trainable"] = False  # No weights; ids are integers.
        super().__init__(**kwargs)
        self.do_lower_case = do_lower_case
        self.proto = None
        self._sentencepiece = None
        # No state to build: built now, so Keras does not trace `call` in a scratch graph to
        # build a layer that holds this one (~1 s for a featurizer's graph).
        self.built = True
        if proto is not None:
            self.set_proto(proto)

    def set_proto(self, proto: str | bytes) -> None:
        """Loads and validates the SentencePiece model (path or bytes)."""
        if isinstance(proto, bytes):
            model_bytes = albert_model_proto_from_bytes(proto)
        else:
            model_bytes = load_albert_model_proto(os.fspath(proto))
        self.proto = model_bytes
        self._sentencepiece = shared_sentencepiece_tokenizer(model_bytes)
        self._space_id = int(self._sentencepiece.string_to_id("\u2581").numpy())
        if self._space_id == UNK_ID:
            self._space_id = -1

    @property
    def vocab_size(self) -> int:
        """Number of pieces."""
        return int(self.sentencepiece.vocab_size().numpy())

    @property
    def sentencepiece(self) -> tf_text.SentencepieceTokenizer:
        """The tensorflow-text tokenizer over the model (raw pieces and offsets, no ALBERT
        post-processing), for in-graph code that needs more than `call`'s ids."""
        self._check_proto()
        return self._sentencepiece

    def __call__(self, texts, *args, **kwargs):
        return super().__call__(as_string_tensor(texts), *args, **kwargs)

    def call(self, texts):
        self._check_proto()
        texts = tf.convert_to_tensor(texts, dtype=tf.string)
        normalized = normalize_text_tf(texts, do_lower_case=self.do_lower_case)
        ids = self._sentencepiece.tokenize(normalized)
        return self._drop_space_before_special(ids)

    def _drop_space_before_special(self, ids: tf.RaggedTensor) -> tf.RaggedTensor:
        """Drops a bare "▁" piece directly followed (in the same row) by a special token."""
        if self._space_id < 0:
            return ids
        if ids.ragged_rank > 1:  # Texts of rank > 1: the pieces are the innermost rows.
            return ids.with_values(self._drop_space_before_special(ids.values))
        values, splits = drop_space_before_special(ids.values, ids.row_splits, self._space_id)
        return tf.RaggedTensor.from_row_splits(values, splits, validate=False)

    def _check_proto(self) -> None:
        if self._sentencepiece is None:
            raise ValueError(
                "AlbertTextTokenizer has no SentencePiece model: pass `proto=` (a .model path "
                "or bytes) or call set_proto() before using it."
            )

    def compute_output_spec(self, texts):
        return keras.KerasTensor(tuple(texts.shape) + (None,), dtype="int32", ragged=True)

    def get_config(self) -> dict:
        config = super().get_config()
        # The model travels as an asset (save_assets), not in the JSON config.
        config.update({"proto": None, "do_lower_case": self.do_lower_case})
        return config

    def save_assets(self, dir_path: str) -> None:
        self._check_proto()
        with open(os.path.join(dir_path, _ASSET_FILE), "wb") as handle:
            handle.write(self.proto)

    def load_assets(self, dir_path: str) -> None:
        self.set_proto(os.path.join(dir_path, _ASSET_FILE))


def as_text_tokenizer(
    tokenizer: AlbertTextTokenizer | str | os.PathLike | dict[str, Any], do_lower_case: bool = True
) -> AlbertTextTokenizer:
    """`tokenizer` as the layer the text featurizers hold: a SentencePiece `.model` path is
    loaded (lowercasing as `do_lower_case` says), a serialized layer (its `get_config`, as a
    featurizer's config holds it) deserialized, a layer kept."""
    if isinstance(tokenizer, dict):
        tokenizer = keras.saving.deserialize_keras_object(tokenizer)
    elif isinstance(tokenizer, (str, os.PathLike)):
        tokenizer = AlbertTextTokenizer(proto=os.fspath(tokenizer), do_lower_case=do_lower_case)
    if not isinstance(tokenizer, AlbertTextTokenizer):
        raise TypeError(
            f"tokenizer must be an AlbertTextTokenizer or a .model path, got {tokenizer!r}."
        )
    return tokenizer
