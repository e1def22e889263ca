"""The Keras encoder bundle: `encoder.keras` + `albert_config.json` + the tokenizer, one directory.

A bundle is what fine-tuning starts from:

    bundle/
        encoder.keras          the AlbertEncoder (Keras 3 archive)
        albert_config.json     its AlbertConfig
        spm.model              the SentencePiece model
        tokenizer_config.json  {"do_lower_case": ..., "seq_length": ...}

`export_saved_model` writes one as `<export_dir>/keras/`; `load_encoder` accepts the bundle or the
export directory.

Illustration (not run):
    save_encoder_bundle("/tmp/bundle", encoder, "/tmp/spm.model")
    encoder, text_tokenizer = load_encoder("/tmp/bundle")
    ids = text_tokenizer(tf.constant(["hello world"]))  # ragged piece ids
"""

from __future__ import annotations

import json
import os
import shutil

import keras

from albert_tf.config import AlbertConfig
from albert_tf.errors import MissingInputError, UserError
from albert_tf.file_names import ALBERT_CONFIG_FILE, ENCODER_FILE, SPM_FILE, TOKENIZER_CONFIG_FILE
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.tokenization.model_proto import load_albert_model_proto
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer

BUNDLE_SUBDIR = "keras"  # Inside a SavedModel export directory.


def save_encoder_bundle(
    bundle_dir: str,
    encoder: AlbertEncoder,
    spm_model_file: str,
    do_lower_case: bool = True,
    seq_length: int | None = None,
) -> str:
    """Writes the bundle files into `bundle_dir` (created; existing files are replaced).

    Callers wanting all-or-nothing output write into a temporary directory and rename it, as
    `export_saved_model` does.

    Returns:
        `bundle_dir`.
    """
    load_albert_model_proto(spm_model_file)  # Validates before writing anything.
    os.makedirs(bundle_dir, exist_ok=True)
    encoder.save(os.path.join(bundle_dir, ENCODER_FILE))
    encoder.config.to_json_file(os.path.join(bundle_dir, ALBERT_CONFIG_FILE))
    shutil.copyfile(spm_model_file, os.path.join(bundle_dir, SPM_FILE))
    with open(os.path.join(bundle_dir, TOKENIZER_CONFIG_FILE), "w", encoding="utf-8") as handle:
        json.dump({"do_lower_case": do_lower_case, "seq_length": seq_length}, handle, indent=2)
    return bundle_dir


def resolve_bundle_dir(path: str) -> str:
    """`path` itself when it is a bundle, or its `keras/` subdirectory (an export directory)."""
    for candidate in (path, os.path.join(path, BUNDLE_SUBDIR)):
        if os.path.isfile(os.path.join(candidate, ENCODER_FILE)):
            return candidate
    raise MissingInputError(
        f"{path}: no {ENCODER_FILE} here or in {BUNDLE_SUBDIR}/; pass a directory written by "
        "save_encoder_bundle or export_saved_model (albert-tf export)."
    )


def find_bundle_dir(path: str) -> str | None:
    """`resolve_bundle_dir(path)` when that holds the bundle's tokenizer, else None (a
    pretraining workdir or a converted directory holds an `encoder.keras` but no `spm.model`)."""
    if not os.path.isdir(path):
        return None
    try:
        bundle_dir = resolve_bundle_dir(path)
    except MissingInputError:
        return None
    return bundle_dir if os.path.isfile(os.path.join(bundle_dir, SPM_FILE)) else None


def read_tokenizer_config(bundle_dir: str) -> dict:
    """The bundle's `tokenizer_config.json` (`do_lower_case`, `seq_length`)."""
    with open(os.path.join(bundle_dir, TOKENIZER_CONFIG_FILE), encoding="utf-8") as handle:
        return json.load(handle)


def load_encoder(path: str) -> tuple[AlbertEncoder, AlbertTextTokenizer]:
    """Loads a bundle (or an export directory's bundle) for Keras fine-tuning.

    Returns:
        `(encoder, text_tokenizer)`: the trainable `AlbertEncoder` and the `AlbertTextTokenizer`
        layer (strings -> ragged piece ids) with the bundle's SentencePiece model and casing.
        The `.model` file itself is `os.path.join(resolve_bundle_dir(path), SPM_FILE)`.
    """
    bundle_dir = resolve_bundle_dir(path)
    encoder = keras.saving.load_model(os.path.join(bundle_dir, ENCODER_FILE), compile=False)
    config = AlbertConfig.from_json_file(os.path.join(bundle_dir, ALBERT_CONFIG_FILE))
    if not isinstance(encoder, AlbertEncoder) or encoder.config != config:
        raise UserError(
            f"{bundle_dir}: {ENCODER_FILE} does not hold an AlbertEncoder with the config of "
            f"{ALBERT_CONFIG_FILE}; re-export the bundle."
        )
    tokenizer_config = read_tokenizer_config(bundle_dir)
    text_tokenizer = AlbertTextTokenizer(
        proto=os.path.join(bundle_dir, SPM_FILE),
        do_lower_case=tokenizer_config["do_lower_case"],
    )
    return encoder, text_tokenizer
