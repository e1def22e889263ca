"""`export_tfhub_encoder`: an ALBERT encoder as a TF Hub / Kaggle Models encoder SavedModel.

Implements the encoder of TF Hub's "Common SavedModel APIs for text" (text embeddings with
Transformer encoders) and the Reusable SavedModel API, as the BERT and ALBERT encoders published
on TF Hub / Kaggle Models do, so that it drops into TensorFlow's "classify text with BERT"
recipe (tf-keras, e.g. `TF_USE_LEGACY_KERAS=1`):

    preprocess = hub.KerasLayer(preprocessor_dir)  # see preprocessor.py
    encoder = hub.KerasLayer(encoder_dir, trainable=True)
    pooled = encoder(preprocess(sentences))["pooled_output"]

The SavedModel:

* `encoder(inputs, training=False)`: `inputs` a dict of int32 `[batch, seq]` tensors
  `input_word_ids`, `input_mask`, `input_type_ids`; returns float32 `pooled_output`
  `[batch, H]`, `sequence_output` `[batch, seq, H]`, `default` (= `pooled_output`) and
  `encoder_outputs`, a list with the output of every applied layer (L * inner_group_num; the
  last is `sequence_output`). `training=True` applies dropout, for fine-tuning.
* `encoder.mlm(inputs, training=False)`: `inputs` also holds `masked_lm_positions` int32
  `[batch, P]`; returns the same plus `mlm_logits` float32 `[batch, P, vocab_size]` from the
  pretrainer's masked-LM head. Only exported when the model has that head (a pretraining
  checkpoint, a pretrainer `.keras`, a converted checkpoint with heads). An encoder alone (an
  `encoder.keras`, a bundle, a fine-tuned model's encoder) has no `mlm`, with a warning: the
  head's weights are not there to export, and random ones would pass for trained ones.
* `variables`, `trainable_variables`: the weights as variables (not constants), so
  `hub.KerasLayer(..., trainable=True)` fine-tunes them; `regularization_losses`: empty (ALBERT
  has no weight regularizers; weight decay belongs to the optimizer). `mlm` has its own three
  (the encoder's variables and the head's).
* `sp_model_file`: the SentencePiece model (an asset), for users who tokenize themselves.
* Signatures, for TF Serving and `saved_model_cli`: `serving_default(input_word_ids,
  input_mask, input_type_ids)` -> `pooled_output`, `sequence_output`, `default`, and `mlm`
  (the same plus `masked_lm_positions`) -> `mlm_logits`. A signature's outputs are flat
  tensors, so `encoder_outputs` is only in the Python call. TF Serving warm-up records are in
  `assets.extra/` (export/warmup.py).

Keras 3 (no tf-keras) loads it with `tf.saved_model.load(encoder_dir)` or
`keras.layers.TFSMLayer(encoder_dir, call_endpoint="__call__")` (inference).

The export computes in float32 whatever the model's dtype policy (a `mixed_bfloat16` run
included): the encoder is rebuilt in float32 with every layer's output and the weights copied,
so the SavedModel shares no variables with `model`, and the rebuilt layers compute the plain
chains (`albert_tf.models.chains.PLAIN`) whatever `model` trained with: the export is the same
on every machine.

As in `serving_module.py`, the Keras objects stay out of the SavedModel's object graph
(TF1-style loaders such as TF Serving then find the variables); the variables are tracked as
lists instead.

Illustration (not run):
    export_tfhub_encoder("/tmp/hub/encoder", pretrainer, "/tmp/spm.model")
    '/tmp/hub/encoder'
"""

from __future__ import annotations

import logging
import os

import tensorflow as tf

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.disk_space import explain_disk_full, variables_bytes
from albert_tf.errors import UserError
from albert_tf.export.saved_state import SavedRoot, tracing_for_save
from albert_tf.export.warmup import write_warmup_requests
from albert_tf.models.encoder import INPUT_NAMES, AlbertEncoder
from albert_tf.models.masked_lm_head import AlbertMaskedLMHead
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.output_lock import output_lock
from albert_tf.tokenization.tokenizer import AlbertTokenizer

_INPUT_SPECS = {name: tf.TensorSpec([None, None], tf.int32, name=name) for name in INPUT_NAMES}
_POSITIONS = "masked_lm_positions"


def albert_parts(model) -> tuple[AlbertEncoder, AlbertMaskedLMHead | None]:
    """`model`'s `AlbertEncoder` and masked-LM head (None without one); no copies.

    `model` is an `AlbertEncoder`, an `AlbertPretrainer` (the head comes along) or a fine-tuned
    task model with an `AlbertEncoder` as `.encoder` (its task head is not exported).

    Raises:
        UserError: anything else (a model of another architecture).
    """
    if isinstance(model, AlbertPretrainer):
        return model.encoder, model.masked_lm_head
    encoder = model if isinstance(model, AlbertEncoder) else getattr(model, "encoder", None)
    if not isinstance(encoder, AlbertEncoder):
        raise UserError(
            f"a {type(model).__name__}, not an ALBERT model",
            fix="export an AlbertEncoder, an AlbertPretrainer or a model fine-tuned with albert_tf",
        )
    return encoder, None


def check_tokenizer(model, spm_model_file: str) -> None:
    """Raises `UserError` unless `spm_model_file` is a valid ALBERT tokenizer of `model`'s size."""
    vocab_size = albert_parts(model)[0].config.vocab_size
    pieces = AlbertTokenizer(spm_model_file).vocab_size
    if pieces != vocab_size:
        raise UserError(
            f"{spm_model_file}: the SentencePiece model has {pieces} pieces but the encoder's "
            f"vocab_size is {vocab_size}; pass the tokenizer the model was trained with."
        )


def float32_parts(model) -> tuple[AlbertEncoder, AlbertMaskedLMHead | None]:
    """Float32 copies of `albert_parts(model)`, the encoder returning every layer's output."""
    original, head = albert_parts(model)
    encoder = AlbertEncoder(original.config, output_all_layers=True, dtype="float32")
    encoder.set_weights(original.get_weights())
    if head is None:
        return encoder, None
    copy = AlbertMaskedLMHead(
        **{**head.get_config(), "dtype": "float32"},
        token_embedding=encoder.embeddings.word_embeddings,
    )
    copy.build((None, None, original.config.hidden_size))
    copy.set_weights(head.get_weights())
    return encoder, copy


class _KerasParts:
    """Holds the Keras objects without the SavedModel tracking them (see the module docstring),
    and the root's `__call__`, which `mlm` calls (tracked by the root only)."""

    def __init__(self, encoder: AlbertEncoder, head: AlbertMaskedLMHead | None):
        self.encoder = encoder
        self.head = head
        self.root_call = None


class _Reusable(SavedRoot):
    """A Reusable SavedModel object: `__call__(inputs, training)` and its variable lists.

    `__call__` has no input signature (`training` is a Python bool): its two traces, made here,
    are the concrete functions the SavedModel keeps.
    """

    def __init__(self, keras_parts: _KerasParts, input_specs: dict[str, tf.TensorSpec]):
        super().__init__()
        self._keras = keras_parts
        functions = [
            self.__call__.get_concrete_function(input_specs, training=training)
            for training in (False, True)
        ]
        self.track_variables(v for function in functions for v in function.variables)
        self.regularization_losses = []


class _Encoder(_Reusable):
    @tf.function(autograph=False)
    def __call__(self, inputs, training=False):
        return self.outputs(inputs, training)

    def outputs(self, inputs: dict[str, tf.Tensor], training: bool) -> dict:
        outputs = self._keras.encoder(
            {name: inputs[name] for name in INPUT_NAMES}, training=training
        )
        return {
            "pooled_output": outputs["pooled_output"],
            "sequence_output": outputs["sequence_output"],
            "default": outputs["pooled_output"],
            "encoder_outputs": list(outputs["encoder_outputs"]),
        }


class _MaskedLM(_Reusable):
    """The root's outputs plus `mlm_logits`: it calls the root's `__call__`, whose traces are
    made first, so that the encoder is traced once per `training`, not again here."""

    @tf.function(autograph=False)
    def __call__(self, inputs, training=False):
        outputs = self._keras.root_call(
            {name: inputs[name] for name in INPUT_NAMES}, training=training
        )
        positions = inputs[_POSITIONS]
        return {**outputs, "mlm_logits": self._keras.head(outputs["sequence_output"], positions)}


class TfHubEncoder(_Encoder):
    """The SavedModel's root: the encoder, its `mlm` and the tokenizer asset.

    Args:
        model: see `float32_parts`.
        spm_model_file: the SentencePiece model the encoder was trained with.
    """

    def __init__(self, model, spm_model_file: str):
        check_tokenizer(model, spm_model_file)
        encoder, head = float32_parts(model)
        super().__init__(_KerasParts(encoder, head), _INPUT_SPECS)
        self.sp_model_file = tf.saved_model.Asset(os.path.abspath(spm_model_file))
        if head is not None:
            self._keras.root_call = self.__call__
            self.mlm = _MaskedLM(
                self._keras,
                {
                    **_INPUT_SPECS,
                    _POSITIONS: tf.TensorSpec([None, None], tf.int32, name=_POSITIONS),
                },
            )

    @property
    def keras_encoder(self) -> AlbertEncoder:
        """The float32 `AlbertEncoder` the SavedModel's functions call."""
        return self._keras.encoder

    def signatures(self) -> dict[str, tf.types.experimental.ConcreteFunction]:
        """`serving_default` and (with the head) `mlm`, for `tf.saved_model.save`."""

        def serve(input_word_ids, input_mask, input_type_ids):
            ids = dict(input_word_ids=input_word_ids, input_mask=input_mask)
            outputs = self(dict(ids, input_type_ids=input_type_ids))
            return {name: outputs[name] for name in ("pooled_output", "sequence_output", "default")}

        signatures = {
            "serving_default": tf.function(serve, autograph=False).get_concrete_function(
                *[_INPUT_SPECS[name] for name in INPUT_NAMES]
            )
        }
        if hasattr(self, "mlm"):

            def mlm(input_word_ids, input_mask, input_type_ids, masked_lm_positions):
                ids = dict(input_word_ids=input_word_ids, input_mask=input_mask)
                ids.update(input_type_ids=input_type_ids, masked_lm_positions=masked_lm_positions)
                return {"mlm_logits": self.mlm(ids)["mlm_logits"]}

            specs = [_INPUT_SPECS[name] for name in INPUT_NAMES]
            signatures["mlm"] = tf.function(mlm, autograph=False).get_concrete_function(
                *specs, tf.TensorSpec([None, None], tf.int32, name=_POSITIONS)
            )
        return signatures


def export_tfhub_encoder(
    export_dir: str, model, spm_model_file: str, overwrite: bool = False
) -> str:
    """Writes the TF Hub encoder SavedModel at `export_dir`, atomically; returns its path.

    Args:
        export_dir: the directory to create.
        model: an `AlbertEncoder`, `AlbertPretrainer` (adds `mlm`) or fine-tuned task model.
        spm_model_file: the SentencePiece model the encoder was trained with.
        overwrite: replace an existing `export_dir`, once the new one is complete.
    """
    export_dir = os.path.abspath(os.fspath(export_dir))
    with output_lock(export_dir):
        refuse_existing(export_dir, overwrite)
        check_tokenizer(model, spm_model_file)
        _write(export_dir, model, spm_model_file, overwrite)
    return export_dir


def _write(export_dir: str, model, spm_model_file: str, overwrite: bool) -> None:
    """The SavedModel, traced and written (see `export_tfhub_encoder`)."""
    with tracing_for_save() as options:  # The traces `__call__` keeps, made once.
        root = TfHubEncoder(model, spm_model_file)
        signatures = root.signatures()
    if not hasattr(root, "mlm"):
        logging.warning("Exporting an encoder without the masked-LM head: no `mlm`.")
    tokenizer = AlbertTokenizer(spm_model_file).text_tokenizer_layer
    needed = lambda: variables_bytes(root.variables)  # noqa: E731
    with (
        explain_disk_full(export_dir, needed),
        atomic_output_directory(export_dir, overwrite) as temp_dir,
    ):
        tf.saved_model.save(root, temp_dir, signatures=signatures, options=options)
        write_warmup_requests(temp_dir, [tokenizer, root.keras_encoder])
