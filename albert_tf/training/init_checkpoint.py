"""`init_checkpoint` of a pretraining run: start from an earlier run's weights.

Read: a checkpoint of this trainer (directory or `ckpt-N` prefix), an `encoder.keras` or
`pretrainer.keras` file, or a directory holding them and no checkpoint (what `albert-tf
convert --to=albert_tf` writes, e.g. a checkpoint grown to an extended vocabulary).
"""

from __future__ import annotations

import logging
import os

import keras
import tensorflow as tf

from albert_tf.errors import UserError
from albert_tf.file_names import ENCODER_FILE, PRETRAINER_FILE
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.training.checkpointing import find_checkpoint, read_into


def _keras_file(path: str) -> str | None:
    """The `.keras` file `path` names: itself, or the `pretrainer.keras` (else `encoder.keras`) of
    a directory without checkpoints; None for a checkpoint."""
    if path.endswith(".keras"):
        return path
    if tf.io.gfile.isdir(path) and find_checkpoint(path) is None:
        for name in (PRETRAINER_FILE, ENCODER_FILE):
            if tf.io.gfile.exists(os.path.join(path, name)):
                return os.path.join(path, name)
    return None


def _read_keras_file(encoder: AlbertEncoder, path: str) -> keras.Model:
    """Loads `path`, copies its encoder into `encoder`; returns the loaded model."""
    loaded = keras.saving.load_model(path, compile=False)
    source = loaded.encoder if isinstance(loaded, AlbertPretrainer) else loaded
    if getattr(source, "config", None) != encoder.config:
        raise UserError(
            f"--init_checkpoint {path}: its AlbertConfig differs from the model's; use the "
            "albert_config.json it was trained with (beside it)."
        )
    encoder.set_weights(source.get_weights())
    logging.info("Initialized the encoder from %s.", path)
    return loaded


def load_encoder_weights(encoder: AlbertEncoder, path: str) -> str | None:
    """Initializes `encoder` from `path` (`init_checkpoint`); raises `UserError`.

    `path` is a `.keras` file of an encoder or pretrainer, a directory holding one, or a
    checkpoint of this trainer (its directory or a `ckpt-N` prefix), of which only the encoder
    is read.

    Returns:
        The checkpoint prefix read, or None for a `.keras` file.
    """
    keras_file = _keras_file(path)
    if keras_file is not None:
        _read_keras_file(encoder, keras_file)
        return None
    prefix = find_checkpoint(path)
    if prefix is None:
        raise UserError(
            f"--init_checkpoint {path}: no checkpoint found (expected an encoder.keras or "
            "pretrainer.keras file or a directory with one, a directory of checkpoints, or a "
            "ckpt-N prefix). Convert other formats with albert-tf convert --to=albert_tf first."
        )
    read_into(
        tf.train.Checkpoint(model=tf.train.Checkpoint(encoder=encoder)),
        prefix,
        f"--init_checkpoint {prefix}: its encoder does not match the model's ({{reason}}).",
    )
    logging.info("Initialized the encoder from %s.", prefix)
    return prefix


def load_pretrained_weights(model: AlbertPretrainer, path: str) -> None:
    """Initializes `model` from `path` (`init_checkpoint`); raises `UserError`.

    The encoder always (see `load_encoder_weights`); the masked-LM and
    sentence-order heads too when `path` is a checkpoint of this trainer or a
    `pretrainer.keras` that holds them, as the original's `init_checkpoint`
    restored every variable it found. That is what continued pretraining needs
    (e.g. a second phase at a longer `max_seq_length`, or a grown vocabulary);
    a head not in the checkpoint starts fresh.
    """
    keras_file = _keras_file(path)
    if keras_file is not None:
        loaded = _read_keras_file(model.encoder, keras_file)
        if isinstance(loaded, AlbertPretrainer):
            for name in ("masked_lm_head", "sentence_order_head"):
                getattr(model, name).set_weights(getattr(loaded, name).get_weights())
            logging.info("Initialized the heads from %s.", keras_file)
        return
    prefix = load_encoder_weights(model.encoder, path)
    for name in ("masked_lm_head", "sentence_order_head"):
        head = tf.train.Checkpoint(**{name: getattr(model, name)})
        status = tf.train.Checkpoint(model=head).read(prefix).expect_partial()
        try:
            status.assert_existing_objects_matched()
        except AssertionError:
            logging.info("--init_checkpoint %s holds no %s; it starts fresh.", prefix, name)
            continue
        logging.info("Initialized the %s from %s.", name, prefix)
