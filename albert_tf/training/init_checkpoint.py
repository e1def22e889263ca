"""`init_checkpoint` of a pretraining run: start from an earlier run's weights."""

from __future__ import annotations

import logging

import keras
import tensorflow as tf

from albert_tf.errors import UserError
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.training.checkpointing import find_checkpoint, read_into


def load_encoder_weights(encoder: AlbertEncoder, path: str) -> str | None:
    """Initializes `encoder` from `path` (`init_checkpoint`); raises `UserError`.

    `path` is an `encoder.keras` file, or a checkpoint of this trainer (its
    directory or a `ckpt-N` prefix), of which only the encoder is read.

    Returns:
        The checkpoint prefix read, or None for an `encoder.keras` file.
    """
    if path.endswith(".keras"):
        loaded = keras.saving.load_model(path, compile=False)
        if getattr(loaded, "config", None) != encoder.config:
            raise UserError(
                f"--init_checkpoint {path}: its AlbertConfig differs from the model's; use the "
                "albert_config.json it was trained with."
            )
        encoder.set_weights(loaded.get_weights())
        logging.info("Initialized the encoder from %s.", path)
        return None
    prefix = find_checkpoint(path)
    if prefix is None:
        raise UserError(
            f"--init_checkpoint {path}: no checkpoint found (expected an encoder.keras file, a "
            "directory of checkpoints, or a ckpt-N prefix). Convert original TF1 ALBERT "
            "checkpoints with the export tools first."
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
    sentence-order heads too when `path` is a checkpoint of this trainer that
    holds them, as the original's `init_checkpoint` restored every variable it
    found. That is what continued pretraining needs (e.g. a second phase at a
    longer `max_seq_length`); a head not in the checkpoint starts fresh.
    """
    prefix = load_encoder_weights(model.encoder, path)
    if prefix is None:  # An encoder.keras file: no heads in it.
        return
    for name in ("masked_lm_head", "sentence_order_head"):
        head = tf.train.Checkpoint(**{name: getattr(model, name)})
        status = tf.train.Checkpoint(model=head).read(prefix).expect_partial()
        try:
            status.assert_existing_objects_matched()
        except AssertionError:
            logging.info("--init_checkpoint %s holds no %s; it starts fresh.", prefix, name)
            continue
        logging.info("Initialized the %s from %s.", name, prefix)
