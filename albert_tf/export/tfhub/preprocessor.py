"""`export_tfhub_preprocessor`: ALBERT's text preprocessing as a TF Hub / Kaggle SavedModel.

Implements the preprocessor of TF Hub's "Common SavedModel APIs for text" (text embeddings
with Transformer encoders), the companion of the encoder of encoder.py:

* `preprocessor(sentences)`: string `[batch]` -> the encoder inputs `input_word_ids`,
  `input_mask`, `input_type_ids`, int32 `[batch, seq_length]` at the export's `seq_length`
  (`[CLS] sentence [SEP]`, cut to fit).
* `preprocessor.tokenize(sentences)`: string `[batch]` -> int32 RaggedTensor
  `[batch, (tokens)]`: albert_tf's tokenization (`AlbertTextTokenizer`: ALBERT normalization,
  SentencePiece, the same ids as `AlbertTokenizer.encode`). The API allows more ragged
  dimensions and leaves their meaning to the model (BERT's WordPiece groups pieces by words);
  SentencePiece splits no words first, so, like the published ALBERT preprocessors, one.
* `preprocessor.tokenize.get_special_tokens_dict()`: int32 scalars `vocab_size`,
  `start_of_sequence_id` (`[CLS]`), `end_of_segment_id` (`[SEP]`), `padding_id` (`<pad>`),
  `mask_id` (`[MASK]`).
* `preprocessor.bert_pack_inputs(segments, seq_length=None)`: a list of one or two int32
  RaggedTensors `[batch, (tokens)]` (the API asks for the ragged rank of `tokenize`'s output)
  -> the encoder inputs at `seq_length` (default: the export's), as the API prescribes:
  `[CLS] a [SEP] b [SEP]`, every segment ending with `[SEP]` (an empty one too, unlike
  albert_tf's own text signatures, which pack an empty second text as a single segment),
  segments cut round-robin to prefixes of about equal length (for two segments, the lengths of
  the original ALBERT's longest-first truncation). `seq_length` must leave room for the special
  tokens and stay within the encoder's positions (an error otherwise).
* `sp_model_file`: the SentencePiece model (an asset).
* Signature `serving_default(sentences)` -> the encoder inputs, for TF Serving (with warm-up
  records, export/warmup.py).

Load it outside a distribution strategy's scope when it runs in `tf.data`. Loading needs
`tensorflow_text` (import it first: it registers the SentencePiece and normalization ops).

Illustration (not run):
    export_tfhub_preprocessor("/tmp/hub/preprocessor", "/tmp/spm.model", seq_length=128)
    '/tmp/hub/preprocessor'
"""

from __future__ import annotations

import os

import tensorflow as tf
import tensorflow_text as tf_text

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.errors import UserError
from albert_tf.export.saved_state import tracing_for_save, trackable_resources
from albert_tf.export.warmup import write_warmup_requests
from albert_tf.output_lock import output_lock
from albert_tf.tokenization.model_proto import CLS_ID, MASK_ID, PAD_ID, SEP_ID
from albert_tf.tokenization.tokenizer import AlbertTokenizer

_TEXT_SPEC = tf.TensorSpec([None], tf.string, name="sentences")


class _TokenizerHolder:
    """Holds the Keras tokenizer layer without the SavedModel tracking it (as serving_module)."""

    def __init__(self, text_tokenizer):
        self.text_tokenizer = text_tokenizer


class _Tokenize(tf.Module):
    """`tokenize(sentences)` and `tokenize.get_special_tokens_dict()`."""

    def __init__(self, text_tokenizer, vocab_size: int):
        super().__init__(name="tokenize")
        self._keras = _TokenizerHolder(text_tokenizer)
        self._resources = trackable_resources([text_tokenizer])
        self._special_tokens = {
            "vocab_size": vocab_size,
            "start_of_sequence_id": CLS_ID,
            "end_of_segment_id": SEP_ID,
            "padding_id": PAD_ID,
            "mask_id": MASK_ID,
        }

    @tf.function(input_signature=[_TEXT_SPEC], autograph=False)
    def __call__(self, sentences):
        return self._keras.text_tokenizer(sentences)

    @tf.function(input_signature=[], autograph=False)
    def get_special_tokens_dict(self):
        return {name: tf.constant(value, tf.int32) for name, value in self._special_tokens.items()}


class _BertPackInputs(tf.Module):
    """`bert_pack_inputs(segments, seq_length=<default>)`, traced for one and two segments.

    The default is a Python default of the function (a restored function converts it, or a
    Python `seq_length`, to the traced scalar), so it is set per instance, in `__init__`.
    """

    def __init__(self, default_seq_length: int, max_seq_length: int):
        super().__init__(name="bert_pack_inputs")

        @tf.function(autograph=False)
        def call(inputs, seq_length=default_seq_length):
            segments = list(inputs) if isinstance(inputs, list | tuple) else [inputs]
            return bert_pack_inputs(segments, seq_length, max_seq_length)

        spec = tf.RaggedTensorSpec([None, None], tf.int32, ragged_rank=1)
        for num_segments in (1, 2):
            call.get_concrete_function(
                [spec] * num_segments, tf.TensorSpec([], tf.int32, name="seq_length")
            )
        self.__call__ = call


def bert_pack_inputs(segments: list[tf.RaggedTensor], seq_length, max_seq_length: int) -> dict:
    """The TF Hub packing of 1 or 2 ragged segments (see the module docstring); int32 outputs."""
    if len(segments) not in (1, 2):
        raise ValueError(f"bert_pack_inputs takes 1 or 2 segments, got {len(segments)}.")
    segments = [tf.cast(segment, tf.int32) for segment in segments]
    seq_length = tf.cast(seq_length, tf.int32)
    specials = len(segments) + 1
    tf.debugging.assert_greater_equal(
        seq_length, specials, message=f"seq_length must be >= {specials} for the special tokens"
    )
    tf.debugging.assert_less_equal(
        seq_length,
        max_seq_length,
        message=f"seq_length must be <= max_position_embeddings={max_seq_length} of the encoder",
    )
    trimmed = tf_text.RoundRobinTrimmer(seq_length - specials).trim(segments)
    word_ids, type_ids = tf_text.combine_segments(trimmed, CLS_ID, SEP_ID)
    input_word_ids, input_mask = tf_text.pad_model_inputs(word_ids, seq_length, pad_value=PAD_ID)
    input_type_ids, _ = tf_text.pad_model_inputs(type_ids, seq_length, pad_value=0)
    shape = tf.stack([segments[0].nrows(out_type=tf.int32), seq_length])
    outputs = {
        "input_word_ids": input_word_ids,
        "input_mask": input_mask,
        "input_type_ids": input_type_ids,
    }
    return {name: tf.reshape(tf.cast(value, tf.int32), shape) for name, value in outputs.items()}


class TfHubPreprocessor(tf.Module):
    """The SavedModel's root (see the module docstring).

    Args:
        spm_model_file: the SentencePiece model the encoder was trained with.
        seq_length: the default packed length.
        max_seq_length: the encoder's `max_position_embeddings` (bounds `seq_length`).
        do_lower_case: lowercase while normalizing, as in training.
    """

    def __init__(
        self,
        spm_model_file: str,
        seq_length: int = 128,
        max_seq_length: int = 512,
        do_lower_case: bool = True,
    ):
        super().__init__(name="albert_preprocessor")
        if not 3 <= seq_length <= max_seq_length:
            raise UserError(
                f"seq_length={seq_length} must be in [3, max_position_embeddings="
                f"{max_seq_length}] of the model."
            )
        tokenizer = AlbertTokenizer(spm_model_file, do_lower_case=do_lower_case)
        self.tokenize = _Tokenize(tokenizer.text_tokenizer_layer, tokenizer.vocab_size)
        self.bert_pack_inputs = _BertPackInputs(seq_length, max_seq_length)
        self.sp_model_file = tf.saved_model.Asset(os.path.abspath(spm_model_file))
        self._seq_length = seq_length
        self._max_seq_length = max_seq_length

    @tf.function(input_signature=[_TEXT_SPEC], autograph=False)
    def __call__(self, sentences):
        # (`self.bert_pack_inputs` is callable only once restored: its `__call__` is an
        # instance attribute.)
        segments = [self.tokenize(sentences)]
        return bert_pack_inputs(segments, self._seq_length, self._max_seq_length)


def export_tfhub_preprocessor(
    export_dir: str,
    spm_model_file: str,
    seq_length: int = 128,
    max_seq_length: int = 512,
    do_lower_case: bool = True,
    overwrite: bool = False,
) -> str:
    """Writes the TF Hub preprocessor SavedModel at `export_dir`, atomically; returns its path.

    Args:
        export_dir: the directory to create.
        spm_model_file: the SentencePiece model the encoder was trained with.
        seq_length: the default packed length (`preprocessor(sentences)`, `bert_pack_inputs`).
        max_seq_length: the encoder's `max_position_embeddings`.
        do_lower_case: lowercase while normalizing, as in training.
        overwrite: replace an existing `export_dir`, once the new one is complete.
    """
    export_dir = os.path.abspath(os.fspath(export_dir))
    with output_lock(export_dir):
        refuse_existing(export_dir, overwrite)
        with tracing_for_save() as options:  # `bert_pack_inputs`' two traces, made once.
            root = TfHubPreprocessor(spm_model_file, seq_length, max_seq_length, do_lower_case)
        signatures = {"serving_default": root.__call__}  # Traced once, by the save.
        with atomic_output_directory(export_dir, overwrite) as temp_dir:
            tf.saved_model.save(root, temp_dir, signatures=signatures, options=options)
            write_warmup_requests(temp_dir)
    return export_dir
