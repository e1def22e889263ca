"""`no_autograph()`: fails if a function traced inside is converted by AutoGraph.

Functions whose Python has no tensor-dependent control flow are traced with
`tf.function(..., autograph=False)`: AutoGraph's conversion of the code they call costs CPU
seconds per trace and changes nothing in the graph. The tests of such functions trace them
inside this context.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

from tensorflow.python.autograph.impl import api as autograph_api


@contextlib.contextmanager
def no_autograph() -> Iterator[None]:
    """Fails if a function traced inside is converted by AutoGraph."""
    with mock.patch.object(
        autograph_api, "converted_call", wraps=autograph_api.converted_call
    ) as converted:
        yield
    assert not converted.called, f"AutoGraph converted {converted.call_args_list[0].args[0]}"
