"""`unreadable_records_error`: a TFRecord read failure, as an error naming the file."""

from __future__ import annotations

import tensorflow as tf

from albert_tf.errors import UserError
from albert_tf.inputs.pretrain_input import find_unreadable_file


def unreadable_records_error(patterns: str, error: tf.errors.DataLossError) -> UserError:
    """The `UserError` to raise for `error` while reading `patterns`: names the bad file."""
    found = find_unreadable_file(patterns)
    if found is None:
        return UserError(f"Reading {patterns!r} failed: {error.message.strip()}")
    path, reason = found
    return UserError(f"{path}: corrupt or truncated TFRecord file ({reason}); regenerate it.")
