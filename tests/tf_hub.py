"""`tensorflow_hub` (with `tf_keras`), importable whatever the installed setuptools.

tensorflow-hub 0.16.1, its latest release, imports `pkg_resources` for one call,
`parse_version`, in its TensorFlow version check; setuptools 82 removed `pkg_resources`. When it
is missing, a stand-in module with `packaging`'s `parse` (a TensorFlow dependency) takes its
place before `tensorflow_hub` is imported. Users pin `setuptools<82` instead (docs/serving.md).
"""

from __future__ import annotations

import importlib.util
import sys
import types

if importlib.util.find_spec("pkg_resources") is None:
    from packaging.version import parse as _parse_version

    _stand_in = types.ModuleType("pkg_resources")
    _stand_in.parse_version = _parse_version
    sys.modules["pkg_resources"] = _stand_in

import tensorflow_hub as hub  # noqa: E402
import tf_keras  # noqa: E402

__all__ = ["hub", "tf_keras"]
