"""The checkpoint formats conversion reads and writes, by name.

Its own module, without TensorFlow: `albert-tf convert` offers them as the choices of its
flags before anything loads.

Example:
    >>> check_format("to", "hf")
    >>> check_format("to", "onnx")
    Traceback (most recent call last):
    ...
    albert_tf.errors.UserError: to='onnx' is not a checkpoint format; use one of ...
"""

from __future__ import annotations

from albert_tf.errors import UserError

FORMATS = ("tf1", "hf", "albert_tf", "keras_hub")


def check_format(name: str, value: str) -> None:
    """A `UserError` unless `value` (the setting `name`) is one of `FORMATS`."""
    if value not in FORMATS:
        raise UserError(f"{name}={value!r} is not a checkpoint format; use one of {FORMATS}.")
