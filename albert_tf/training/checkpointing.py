"""Checkpoint helpers that survive SIGKILL at any moment.

TensorFlow writes a checkpoint's data and index first and then swaps in the
`checkpoint` state file atomically (temp name + rename), so a kill during a save
leaves the state file pointing at the previous checkpoint. What remains is a
newest checkpoint that is listed but unreadable (deleted files, disk full, a
copy cut short): `restore_latest_readable` then falls back to the one before.
"""

from __future__ import annotations

import logging

import tensorflow as tf

from albert_tf.errors import UserError


def restore_latest_readable(
    checkpoint: tf.train.Checkpoint, manager: tf.train.CheckpointManager
) -> str | None:
    """Restores the newest checkpoint of `manager` that loads; returns its path.

    Returns None when the directory has no checkpoint (a fresh start). Raises a `UserError`
    naming the directory when checkpoints exist and none of them loads.

    Illustration (not run):
        manager = tf.train.CheckpointManager(checkpoint, workdir, max_to_keep=5)
        restored = restore_latest_readable(checkpoint, manager)  # None on a fresh start
    """
    candidates = list(reversed(manager.checkpoints))
    errors = []
    for path in candidates:
        try:
            checkpoint.restore(path).assert_existing_objects_matched()
        # Truncated files raise IndexError, missing ones NotFoundError, another
        # model AssertionError: whatever the cause, this checkpoint is unusable.
        except Exception as e:  # noqa: BLE001
            reason = error_summary(e)
            errors.append(f"{path}: {reason}")
            logging.warning(
                "Checkpoint %s cannot be restored (%s); trying the previous one.", path, reason
            )
            continue
        return path
    if candidates:
        raise UserError(
            "no checkpoint can be restored into this model (" + "; ".join(errors) + ")",
            where=manager.directory,
            fix=(
                "if the model or optimizer settings changed, use a new output directory; "
                "otherwise move the directory away to start over, or restore it from a backup"
            ),
        )
    return None


def find_checkpoint(path: str) -> str | None:
    """The checkpoint prefix `path` names, or None when there is no checkpoint there.

    `path` is a directory (its newest checkpoint, from the `checkpoint` state file) or a
    `ckpt-N` prefix; either way the prefix's `.index` file must exist.

    Illustration (not run):
        find_checkpoint(workdir)  # e.g. workdir + "/ckpt-125000"; None before the first save
    """
    prefix = tf.train.latest_checkpoint(path) if tf.io.gfile.isdir(path) else path
    if not prefix or not tf.io.gfile.exists(prefix + ".index"):
        return None
    return prefix


def read_into(checkpoint: tf.train.Checkpoint, prefix: str, mismatch_message: str) -> None:
    """Reads `prefix` into the objects of `checkpoint`, each of which must be found there.

    What the checkpoint holds beyond them (the optimizer, the step) is ignored.

    Raises:
        ValueError: `mismatch_message`, with `{reason}` replaced by the `error_summary` of the
            cause, when an object is missing from the checkpoint or has another shape there.

    Illustration (not run):
        read_into(tf.train.Checkpoint(model=model), prefix, "{reason}: another config?")
    """
    try:
        checkpoint.read(prefix).expect_partial().assert_existing_objects_matched()
    except (AssertionError, ValueError, tf.errors.OpError) as error:
        # Not str.format: the message names paths, which may hold braces.
        raise UserError(mismatch_message.replace("{reason}", error_summary(error))) from error


def error_summary(error: BaseException) -> str:
    """`ErrorType: first line of its message`: TensorFlow's restore errors run for pages."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"
