"""`export_tfhub`: an ALBERT model as the TF Hub / Kaggle Models pair of SavedModels.

    export_dir/
        preprocessor/   strings -> encoder inputs, `tokenize`, `bert_pack_inputs`
                        (tfhub_preprocessor.py)
        encoder/        encoder inputs -> pooled/sequence/per-layer outputs, `mlm`; trainable
                        (tfhub_encoder.py)

Both carry TF Serving warm-up records. The pair is used as TensorFlow's "classify text with
BERT" tutorial uses `albert_en_preprocess` + `albert_en_base` (tf-keras):

    import tensorflow_hub as hub, tensorflow_text  # noqa: F401
    preprocess = hub.KerasLayer(export_dir + "/preprocessor")
    encoder = hub.KerasLayer(export_dir + "/encoder", trainable=True)
    pooled = encoder(preprocess(sentences))["pooled_output"]

`load_tfhub_source` finds the model in what albert_tf writes: a fine-tuning output directory
(its `model.keras`: the fine-tuned encoder, without the task head; its `spm.model` and casing), a
pretraining workdir or `ckpt-N` prefix (the pretrainer, with the masked-LM head; the
`albert_config.json` beside it unless given), an encoder bundle or SavedModel export directory
(`keras/`), a converted albert_tf directory (`pretrainer.keras` or `encoder.keras`), or a
`.keras` file. Hugging Face and original TF1 checkpoints are loaded with
`albert_tf.convert.convert.load_model` and passed as a model (scripts/export_saved_model.py
`--checkpoint_format=hf|tf1` does so).

Illustration (not run):
    export_tfhub("/tmp/albert_hub", "/tmp/pretrain_workdir", "/tmp/spm.model")
    '/tmp/albert_hub'
"""

from __future__ import annotations

import dataclasses
import json
import os

import keras

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.config import AlbertConfig
from albert_tf.errors import MissingInputError, UserError
from albert_tf.export.encoder_bundle import load_encoder, read_tokenizer_config, resolve_bundle_dir
from albert_tf.export.saved_model import load_albert_model
from albert_tf.export.tfhub_encoder import albert_parts, export_tfhub_encoder
from albert_tf.export.tfhub_preprocessor import export_tfhub_preprocessor
from albert_tf.file_names import (
    ALBERT_CONFIG_FILE,
    ENCODER_FILE,
    FINETUNED_MODEL_FILE,
    PRETRAINER_FILE,
    SPM_FILE,
    TASK_FILE,
)
from albert_tf.output_lock import output_lock
from albert_tf.training.checkpointing import find_checkpoint

PREPROCESSOR_SUBDIR = "preprocessor"
ENCODER_SUBDIR = "encoder"
DEFAULT_SEQ_LENGTH = 128  # The published preprocessors' default.


@dataclasses.dataclass
class TfHubSource:
    """A model to export and the tokenizer settings that came with it (None: not known)."""

    model: keras.Model
    spm_model_file: str | None = None
    do_lower_case: bool | None = None


def load_tfhub_source(path: str, albert_config: AlbertConfig | str | None = None) -> TfHubSource:
    """Loads the model at `path` (see the module docstring for what `path` may be).

    Raises:
        MissingInputError: nothing albert_tf can read at `path`.
        UserError: a model that is not ALBERT; a checkpoint without its config.
    """
    path = os.fspath(path)
    if os.path.isfile(os.path.join(path, FINETUNED_MODEL_FILE)):
        return TfHubSource(
            _load_keras(os.path.join(path, FINETUNED_MODEL_FILE)),
            _file_or_none(os.path.join(path, SPM_FILE)),
            _json_value(os.path.join(path, TASK_FILE), "do_lower_case"),
        )
    if find_checkpoint(path) is not None:
        directory = path if os.path.isdir(path) else os.path.dirname(path)
        config = albert_config or _file_or_none(os.path.join(directory, ALBERT_CONFIG_FILE))
        return TfHubSource(load_albert_model(path, config))
    if os.path.isfile(path) and path.endswith(".keras"):
        return TfHubSource(_load_keras(path))
    source = _load_directory(path) if os.path.isdir(path) else None
    if source is None:
        raise MissingInputError(
            f"{path}: no ALBERT model here; pass a fine-tuning output directory (its "
            f"{FINETUNED_MODEL_FILE}), a pretraining workdir or ckpt-N prefix, an encoder bundle "
            "or export directory, or a .keras file (Hugging Face / TF1 checkpoints: "
            "--checkpoint_format=hf or tf1)."
        )
    return source


def _load_directory(path: str) -> TfHubSource | None:
    """A bundle (or an export directory's), else a converted albert_tf directory, else None."""
    try:
        bundle_dir = resolve_bundle_dir(path)
    except MissingInputError:
        bundle_dir = None
    if bundle_dir is not None and os.path.isfile(os.path.join(bundle_dir, SPM_FILE)):
        encoder, _ = load_encoder(bundle_dir)
        casing = read_tokenizer_config(bundle_dir).get("do_lower_case")
        return TfHubSource(encoder, os.path.join(bundle_dir, SPM_FILE), casing)
    for name in (PRETRAINER_FILE, ENCODER_FILE):
        if os.path.isfile(os.path.join(path, name)):
            return TfHubSource(_load_keras(os.path.join(path, name)))
    return None


def _load_keras(path: str) -> keras.Model:
    try:
        model = keras.saving.load_model(path, compile=False)
    except (TypeError, ValueError, OSError) as error:
        raise UserError(f"{path}: not a Keras model albert_tf can load ({error}).") from error
    try:
        albert_parts(model)
    except UserError as error:
        raise UserError(f"{path} holds {error.what}", fix=error.fix) from None
    return model


def _file_or_none(path: str) -> str | None:
    return path if os.path.isfile(path) else None


def _json_value(path: str, key: str):
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as handle:
        return json.load(handle).get(key)


def export_tfhub(
    export_dir: str,
    model: keras.Model | TfHubSource | str,
    spm_model_file: str | None = None,
    albert_config: AlbertConfig | str | None = None,
    seq_length: int | None = None,
    do_lower_case: bool | None = None,
    overwrite: bool = False,
) -> str:
    """Writes `export_dir/preprocessor` and `export_dir/encoder`, atomically; returns the path.

    Args:
        export_dir: the directory to create.
        model: an `AlbertEncoder`, `AlbertPretrainer` (the encoder gets `mlm`), fine-tuned task
            model (its encoder), a `TfHubSource`, or a path for `load_tfhub_source`.
        spm_model_file: the SentencePiece model; default: the one that came with `model`.
        albert_config: the config of a training checkpoint (default: the one beside it).
        seq_length: the preprocessor's default length; default 128, or the model's
            `max_position_embeddings` when smaller.
        do_lower_case: default: the casing that came with `model`, else True.
        overwrite: replace an existing `export_dir`, once the new one is complete.
    """
    export_dir = os.path.abspath(os.fspath(export_dir))
    with output_lock(export_dir):
        refuse_existing(export_dir, overwrite)  # Before the slow part; checked again at the end.
        if isinstance(model, str):
            model = load_tfhub_source(model, albert_config)
        source = model if isinstance(model, TfHubSource) else TfHubSource(model)
        spm_model_file = spm_model_file or source.spm_model_file
        if spm_model_file is None:
            raise UserError(
                "no SentencePiece model came with the model; pass the one it was trained with "
                "(--spm_model_file)."
            )
        casing = do_lower_case if do_lower_case is not None else source.do_lower_case
        max_positions = albert_parts(source.model)[0].config.max_position_embeddings
        with atomic_output_directory(export_dir, overwrite) as temp_dir:
            # The encoder first: it checks the tokenizer against the model.
            export_tfhub_encoder(
                os.path.join(temp_dir, ENCODER_SUBDIR), source.model, spm_model_file
            )
            export_tfhub_preprocessor(
                os.path.join(temp_dir, PREPROCESSOR_SUBDIR),
                spm_model_file,
                seq_length or min(DEFAULT_SEQ_LENGTH, max_positions),
                max_positions,
                True if casing is None else casing,
            )
    return export_dir
