"""The speed-only forms of albert_tf, chosen per machine kind and passed as one object.

`RuntimeOptions(...).resolve()` (a command's flags) or `Runtime.for_machine()` gives the
`Runtime` a run uses: which forms replace pieces of the plain model (`albert_tf.models`) and
why. See `albert_tf.runtime.runtime`.
"""

from albert_tf.runtime.runtime import Runtime, RuntimeOptions

__all__ = ["Runtime", "RuntimeOptions"]
