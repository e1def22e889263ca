"""The speed-only forms of albert_tf, chosen per machine kind and passed as one object.

`RuntimeOptions(...).resolve()` (a command's flags) or `Runtime.for_machine()` gives the
`Runtime` a run uses: which forms replace pieces of the plain model (`albert_tf.models`) and
why. See `albert_tf.runtime.runtime`.
"""

from albert_tf.lazy_exports import lazy_exports

__all__ = ["Runtime", "RuntimeOptions"]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
