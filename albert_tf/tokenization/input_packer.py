"""`AlbertInputPacker`: token ids of one or two segments -> the encoder's dense inputs.

A Keras layer around the export's `pack_segments` (one packing for serving and fine-tuning):
`[CLS] A [SEP]` or `[CLS] A [SEP] B [SEP]` (a row whose B has no pieces is packed as a single
segment, as the original does for an empty `text_b`), truncated longest-first like the
original `_truncate_seq_pair`, padded to a static `seq_length`. Only TensorFlow ops on ragged
tensors: works in `tf.data`, in a Keras model and in an exported SavedModel.
"""

from __future__ import annotations

import keras
import tensorflow as tf

from albert_tf.layer_config import ArgumentsConfig
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID
from albert_tf.tokenization.text_packing import pack_segments


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertInputPacker(ArgumentsConfig, keras.layers.Layer):
    """Packs ragged ids `[N, None]` (one or two segments) into `[N, seq_length]` features.

    Args:
        seq_length: the model's input length (`max_seq_length`), at least 3.
        cls_id, sep_id: special ids (ALBERT's layout by default); padding is 0 (`<pad>`).
        **kwargs: `keras.layers.Layer` arguments.

    Call with a ragged tensor or a list/tuple of one or two ragged tensors. Returns a dict
    of int32 `input_word_ids`, `input_mask`, `input_type_ids` of static width `seq_length`.

    Example:
        >>> packer = AlbertInputPacker(seq_length=8)
        >>> a = tf.ragged.constant([[10, 11, 12, 13]])
        >>> b = tf.ragged.constant([[20, 21, 22]])
        >>> packer([a, b])["input_word_ids"].numpy().tolist()
        [[2, 10, 11, 12, 3, 20, 21, 3]]
    """

    def __init__(
        self,
        seq_length: int,
        cls_id: int = CLS_ID,
        sep_id: int = SEP_ID,
        **kwargs,
    ):
        kwargs.setdefault("dtype", "int32")
        kwargs["trainable"] = False
        super().__init__(**kwargs)
        if seq_length < 3:
            raise ValueError(f"seq_length must be >= 3 ([CLS] and [SEP]s), got {seq_length}.")
        self.seq_length = seq_length
        self.cls_id = cls_id
        self.sep_id = sep_id
        self.built = True  # No state (see `AlbertTextTokenizer`).

    def call(self, segments):
        if isinstance(segments, (list, tuple)):
            segments = list(segments)
        else:
            segments = [segments]
        if len(segments) not in (1, 2):
            raise ValueError(f"AlbertInputPacker takes 1 or 2 segments, got {len(segments)}.")
        ids_b = segments[1] if len(segments) == 2 else None
        packed = pack_segments(segments[0], ids_b, self.seq_length, self.cls_id, self.sep_id)
        # A static width keeps shapes fixed for XLA and TPUs.
        return {
            name: tf.ensure_shape(tensor, [None, self.seq_length])
            for name, tensor in packed.items()
        }

    def compute_output_spec(self, segments):
        first = segments[0] if isinstance(segments, (list, tuple)) else segments
        spec = keras.KerasTensor((first.shape[0], self.seq_length), dtype="int32")
        return {"input_word_ids": spec, "input_mask": spec, "input_type_ids": spec}
