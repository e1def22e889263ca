"""`cached_probe`: a measurement made once per machine, then read from a small JSON file.

Per-machine choices (the compute precision, the runtime's fast forms) time alternatives on the
machine itself. A measurement holds for one machine and its settings only, so the cache key is
the CPU model and flags, the core count, TensorFlow's version and the settings that change which
kernels run (`machine.KERNEL_ENV`: `TF_ENABLE_ONEDNN_OPTS`, `ONEDNN_MAX_CPU_ISA`, threads, ...),
plus what the caller adds. Files live in `$XDG_CACHE_HOME/albert_tf/` (default `~/.cache`).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
from collections.abc import Callable, Sequence

from albert_tf.atomic_files import atomic_write_text
from albert_tf.runtime import machine


def cached_probe(
    kind: str,
    key: Sequence,
    measure: Callable[[], dict],
    valid: Callable[[dict], bool] = lambda cached: True,
    flags: set[str] | None = None,
) -> dict:
    """`measure()`'s result for this machine and `key`: read from the cache, else measured.

    Args:
        kind: names the file (`<kind>-<hash of the key>.json`).
        key: what else the measurement depends on (JSON-serializable).
        measure: makes the measurement; returns a JSON-serializable dict.
        valid: whether a cached dict is still usable (else it is measured again).
        flags: the CPU flags to key on (default: this machine's).
    """
    path = probe_cache_path(kind, key, flags)
    cached = _read(path)
    if cached is not None and valid(cached):
        return cached
    result = measure()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write_text(path, json.dumps(result, indent=2) + "\n")
    except OSError:
        pass  # A read-only home only costs the measurement next time.
    return result


def probe_cache_path(kind: str, key: Sequence, flags: set[str] | None = None) -> str:
    """The cache file of `kind` for this machine, its settings and `key` (no TensorFlow import:
    the oneDNN choice reads it before TensorFlow loads)."""
    flags = machine.cpu_flags() if flags is None else flags
    facts = [
        machine.cpu_model(),
        sorted(flags),
        os.cpu_count(),
        _tensorflow_version(),
        machine.kernel_settings(),
        list(key),
    ]
    digest = hashlib.sha256(json.dumps(facts).encode()).hexdigest()[:16]
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "albert_tf", f"{kind}-{digest}.json")


def _tensorflow_version() -> str:
    try:
        return importlib.metadata.version("tensorflow")
    except importlib.metadata.PackageNotFoundError:
        return ""


def _read(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as handle:
            cached = json.load(handle)
    except (OSError, ValueError):
        return None
    return cached if isinstance(cached, dict) else None
