"""`AlbertServingModule`: the `tf.Module` that `export_saved_model` saves.

It holds the encoder, the in-graph tokenizer (`AlbertTextTokenizer`, whose tensorflow-text
SentencePiece resource carries the model bytes), the SentencePiece file as a
`tf.saved_model.Asset`, the piece strings, and optionally the masked-LM head; its `tf.function`s
become the SavedModel's signatures:

* `serving_default(input_word_ids, input_mask, input_type_ids)` -> `sequence_output`,
  `pooled_output` (float32).
* `encode_text(text_a)` and `encode_text_pair(text_a, text_b)` -> the same outputs plus the packed
  `input_word_ids`, `input_mask`, `input_type_ids`, at the export `seq_length`. In
  `encode_text_pair` an empty (or all-whitespace) `text_b` row is packed as a single sentence.
* `fill_mask(text)` (when exported with a masked-LM head) -> for each `[MASK]` of each text
  (M = most masks in the batch; rows with fewer are padded): `mask_positions` int32 [B, M]
  (-1 = padding), `top_k_ids` int32 [B, M, k], `top_k_pieces` string [B, M, k] ("" = padding),
  `top_k_scores` float32 [B, M, k] (softmax probabilities; 0 = padding), `num_masks` int32 [B].
  Texts are packed like `encode_text`; a `[MASK]` cut off by truncation is not predicted.

Texts of any length (truncated longest-first, like the original) and empty strings (`[CLS]
[SEP]`) are served without errors.

Signature inputs are all required, hence two text signatures. From Python, the loaded object
also has `encode(text_a, text_b, seq_length)`, which overrides the sequence length per call (up to
`max_position_embeddings`), and the attributes `seq_length`, `top_k`, `do_lower_case`,
`vocab_size` (variables) and `sentencepiece_model_file` (the asset; `.asset_path` points into
the SavedModel's `assets/`, wherever the directory was moved).

The SentencePiece model bytes live in the graph (an attribute of tensorflow-text's op), so the
asset is for consumers (e.g. a Python tokenizer) rather than for the graph. `signatures()` are the
module's `tf.function`s, untraced: the save traces each once (`albert_tf.export.saved_state`).

Illustration (not run):
    module = AlbertServingModule(encoder, "/tmp/spm.model", seq_length=128)
    tf.saved_model.save(module, "/tmp/albert", signatures=module.signatures())
"""

from __future__ import annotations

import os

import tensorflow as tf

from albert_tf.errors import UserError
from albert_tf.export.saved_state import saved_variables, trackable_resources
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.masked_lm_head import AlbertMaskedLMHead
from albert_tf.runtime.compiled_serving import compiled_for_one_row
from albert_tf.tokenization.text_packing import pack_segments
from albert_tf.tokenization.tokenizer import AlbertTokenizer


class _KerasParts:
    """Holds the Keras objects without `tf.Module` tracking them (see `AlbertServingModule`)."""

    def __init__(self, encoder, masked_lm_head, text_tokenizer, compiled_serving):
        self.encoder = encoder
        # The encoder's forward pass (one trace for every signature that calls it).
        self.encode = tf.function(
            lambda inputs: encoder(inputs, training=False),
            input_signature=[_IDS_DICT_SPEC],
            autograph=False,
        )
        if compiled_serving:
            self.encode = compiled_for_one_row(self.encode, [_IDS_DICT_SPEC])
        self.masked_lm_head = masked_lm_head
        self.text_tokenizer = text_tokenizer


_IDS_SPEC = tf.TensorSpec([None, None], tf.int32)
_IDS_DICT_SPEC = {name: _IDS_SPEC for name in ("input_word_ids", "input_mask", "input_type_ids")}
_TEXT_SPEC = tf.TensorSpec([None], tf.string)


class AlbertServingModule(tf.Module):
    """Encoder (+ masked-LM head) with in-graph tokenization, ready for `tf.saved_model.save`.

    Args:
        encoder: the `AlbertEncoder` (the signatures read its variables).
        spm_model_file: the SentencePiece `.model` file the encoder was trained with.
        seq_length: default packed length of the text signatures.
        do_lower_case: lowercase while normalizing, as in training.
        masked_lm_head: the pretrainer's `masked_lm_head`, tied to `encoder`'s word embeddings;
            None to export without `fill_mask`.
        top_k: number of candidates per `[MASK]` in `fill_mask`.
        compiled_serving: serve one text per call as one XLA program
            (`albert_tf.runtime.compiled_serving`).
    """

    def __init__(
        self,
        encoder: AlbertEncoder,
        spm_model_file: str,
        seq_length: int = 128,
        do_lower_case: bool = True,
        masked_lm_head: AlbertMaskedLMHead | None = None,
        top_k: int = 5,
        compiled_serving: bool = False,
    ):
        super().__init__(name="albert_serving")
        config = encoder.config
        if not 3 <= seq_length <= config.max_position_embeddings:
            raise UserError(
                f"seq_length={seq_length} must be in [3, max_position_embeddings="
                f"{config.max_position_embeddings}] of the model."
            )
        tokenizer = AlbertTokenizer(spm_model_file, do_lower_case=do_lower_case)
        if tokenizer.vocab_size != config.vocab_size:
            raise UserError(
                f"{spm_model_file}: the SentencePiece model has {tokenizer.vocab_size} pieces but "
                f"the encoder's vocab_size is {config.vocab_size}; pass the tokenizer the model "
                "was trained with."
            )
        if not 1 <= top_k <= config.vocab_size:
            raise UserError(f"top_k={top_k} must be in [1, vocab_size={config.vocab_size}].")
        # The Keras objects stay out of the SavedModel's object graph (a plain holder is not
        # tracked): saving them as Keras layers breaks TF1-style loaders (saved_model_cli run,
        # TF Serving), which then do not find the variables. The module tracks the variables
        # and resources the functions use instead (`albert_tf.export.saved_state`): the
        # encoder's, the head's (tied to the word embeddings), the tokenizer's SentencePiece
        # model.
        self._keras = _KerasParts(
            encoder, masked_lm_head, tokenizer.text_tokenizer_layer, compiled_serving
        )
        used = [encoder] + ([masked_lm_head] if masked_lm_head is not None else [])
        self._captured_variables = saved_variables(used)
        self._resources = trackable_resources([tokenizer.text_tokenizer_layer])
        self.sentencepiece_model_file = tf.saved_model.Asset(os.path.abspath(spm_model_file))
        self.seq_length = tf.Variable(seq_length, trainable=False, name="seq_length")
        self.top_k = tf.Variable(top_k, trainable=False, name="top_k")
        self.do_lower_case = tf.Variable(do_lower_case, trainable=False, name="do_lower_case")
        self.vocab_size = tf.Variable(config.vocab_size, trainable=False, name="vocab_size")
        self._max_positions = config.max_position_embeddings
        self._default_seq_length = seq_length
        self._top_k = top_k
        self._cls_id, self._sep_id = tokenizer.cls_id, tokenizer.sep_id
        self._mask_id = tokenizer.mask_id
        self._pieces = tf.constant([tokenizer.id_to_piece(i) for i in range(tokenizer.vocab_size)])
        if masked_lm_head is None:
            # tf.saved_model.save traces every tf.function with an input signature.
            self.fill_mask = None

    # -- functions (each one a signature, or callable on the loaded object) --
    @tf.function(input_signature=[_IDS_SPEC, _IDS_SPEC, _IDS_SPEC], autograph=False)
    def serve(self, input_word_ids, input_mask, input_type_ids):
        """Encoder inputs -> `sequence_output`, `pooled_output`."""
        return self._encode_ids(
            {
                "input_word_ids": input_word_ids,
                "input_mask": input_mask,
                "input_type_ids": input_type_ids,
            }
        )

    @tf.function(
        input_signature=[_TEXT_SPEC, _TEXT_SPEC, tf.TensorSpec([], tf.int32)], autograph=False
    )
    def encode(self, text_a, text_b, seq_length):
        """Texts (pairs; empty `text_b` = single) at a given length -> inputs and outputs."""
        checks = [
            tf.debugging.assert_greater_equal(seq_length, 3, message="seq_length must be >= 3"),
            tf.debugging.assert_less_equal(
                seq_length,
                self._max_positions,
                message=f"seq_length must be <= max_position_embeddings={self._max_positions}",
            ),
        ]
        with tf.control_dependencies(checks):  # Before any op reads a position past the table.
            seq_length = tf.identity(seq_length)
        inputs = pack_segments(
            self._keras.text_tokenizer(text_a),
            self._keras.text_tokenizer(text_b),
            seq_length,
            self._cls_id,
            self._sep_id,
        )
        return {**inputs, **self._encode_ids(inputs)}

    @tf.function(input_signature=[_TEXT_SPEC], autograph=False)
    def encode_text(self, text_a):
        """Single sentences at the export `seq_length`."""
        return self.encode(text_a, tf.fill(tf.shape(text_a), ""), self._default_seq_length)

    @tf.function(input_signature=[_TEXT_SPEC, _TEXT_SPEC], autograph=False)
    def encode_text_pair(self, text_a, text_b):
        """Sentence pairs at the export `seq_length`."""
        return self.encode(text_a, text_b, self._default_seq_length)

    @tf.function(input_signature=[_TEXT_SPEC], autograph=False)
    def fill_mask(self, text):
        """Texts with `[MASK]` -> top-k pieces and probabilities per mask."""
        inputs = pack_segments(
            self._keras.text_tokenizer(text),
            None,
            self._default_seq_length,
            self._cls_id,
            self._sep_id,
        )
        sequence_output = self._encode_ids(inputs)["sequence_output"]
        # Masks cut off by truncation are not predicted.
        is_mask = tf.equal(inputs["input_word_ids"], self._mask_id)
        # Each row's mask positions first, in order (a stable sort), cut to the most masks.
        num_masks = tf.reduce_sum(tf.cast(is_mask, tf.int32), axis=1)
        width = tf.reduce_max(tf.concat([[0], num_masks], axis=0))
        order = tf.argsort(tf.cast(tf.logical_not(is_mask), tf.int32), axis=1, stable=True)
        valid = tf.range(width)[None, :] < num_masks[:, None]
        gathered = tf.where(valid, order[:, :width], 0)
        # tf.gather, not the head's take_along_axis: that one fails on a zero-size batch.
        at_masks = tf.gather(sequence_output, gathered, batch_dims=1)
        logits = self._keras.masked_lm_head(at_masks)
        scores, ids = tf.math.top_k(tf.nn.softmax(tf.cast(logits, tf.float32)), k=self._top_k)
        valid_k = tf.broadcast_to(valid[:, :, None], tf.shape(ids))
        return {
            "mask_positions": tf.where(valid, gathered, -1),
            "top_k_ids": tf.where(valid_k, ids, -1),
            "top_k_pieces": tf.where(valid_k, tf.gather(self._pieces, ids), ""),
            "top_k_scores": tf.where(valid_k, scores, 0.0),
            "num_masks": num_masks,
        }

    def signatures(self) -> dict[str, tf.types.experimental.PolymorphicFunction]:
        """Name -> function, for `tf.saved_model.save(..., signatures=...)`."""
        signatures = {
            "serving_default": self.serve,
            "encode_text": self.encode_text,
            "encode_text_pair": self.encode_text_pair,
        }
        if self._keras.masked_lm_head is not None:
            signatures["fill_mask"] = self.fill_mask
        return signatures

    def _encode_ids(self, inputs: dict[str, tf.Tensor]) -> dict[str, tf.Tensor]:
        outputs = self._keras.encode(inputs)
        return {
            "sequence_output": tf.cast(outputs["sequence_output"], tf.float32),
            "pooled_output": tf.cast(outputs["pooled_output"], tf.float32),
        }
