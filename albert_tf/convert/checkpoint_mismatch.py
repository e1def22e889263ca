"""`check_names_and_shapes`: all-or-nothing matching of checkpoint tensors to a model.

A converter first compares the names and shapes it expects with those the
source holds, and raises one error listing every missing, unexpected and
wrongly shaped tensor; only then does it assign. So a load never half-happens.

Example:
>>> check_names_and_shapes({"a": (2,)}, {"a": (2,)}, source="ckpt")  # matches: no error
>>> check_names_and_shapes({"a": (2,)}, {"b": (2,)}, source="ckpt")
Traceback (most recent call last):
CheckpointMismatchError: ckpt does not match the model: 1 missing ...
"""

from __future__ import annotations

from collections.abc import Mapping

from albert_tf.errors import UserError

# How many names of each kind an error message lists before "... and N more".
_LISTED = 20


class CheckpointMismatchError(UserError):
    """The tensors of a checkpoint do not match the model's weights."""


def _listing(title: str, lines: list[str]) -> str:
    shown = lines[:_LISTED]
    more = f"\n    ... and {len(lines) - _LISTED} more" if len(lines) > _LISTED else ""
    return f"\n  {title} ({len(lines)}):\n    " + "\n    ".join(shown) + more


def check_names_and_shapes(
    expected: Mapping[str, tuple[int, ...]],
    found: Mapping[str, tuple[int, ...]],
    source: str,
    hint: str = "",
) -> None:
    """Raises `CheckpointMismatchError` unless `found` has exactly the `expected` names/shapes.

    Args:
        expected: name -> shape the model needs.
        found: name -> shape the source holds (ignored names already removed).
        source: what is being read (a path), for the message.
        hint: what to do about it, appended to the message.
    """
    missing = sorted(set(expected) - set(found))
    unexpected = sorted(set(found) - set(expected))
    wrong_shape = [
        f"{name}: model {list(expected[name])}, checkpoint {list(found[name])}"
        for name in sorted(set(expected) & set(found))
        if tuple(expected[name]) != tuple(found[name])
    ]
    if not (missing or unexpected or wrong_shape):
        return
    message = (
        f"{source} does not match the model: {len(missing)} missing, "
        f"{len(unexpected)} unexpected, {len(wrong_shape)} with a wrong shape; nothing was loaded."
    )
    if missing:
        message += _listing(
            "missing from the checkpoint", [f"{n} {list(expected[n])}" for n in missing]
        )
    if unexpected:
        message += _listing(
            "unexpected in the checkpoint", [f"{n} {list(found[n])}" for n in unexpected]
        )
    if wrong_shape:
        message += _listing("wrong shape", wrong_shape)
    if hint:
        message += f"\n  {hint}"
    raise CheckpointMismatchError(message)
