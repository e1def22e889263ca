"""`export_endpoints`: Keras models and layers behind named SavedModel signatures, atomically.

Every task family's raw-text SavedModel (classification, span QA, multiple choice, tagging)
is written through this one function: the root tracks the models' variables and the
tokenizer's SentencePiece resource (`albert_tf.export.saved_state`: the save traces each
function once), each endpoint becomes a signature and a function of the loaded object (the first
one also `serving_default`, unless one is named so), TF Serving's warm-up records are added (one per
signature, real text: `albert_tf.export.warmup`), and the directory is written under a temporary
name and renamed when complete (`albert_tf.atomic_files`). The result loads with
`tf.saved_model.load` (only `tensorflow` + `tensorflow_text` imported) and with TF1-style
loaders such as `saved_model_cli run` (tensorflow_text imported through `sitecustomize`).

Example:
    >>> import os, tempfile
    >>> import keras, tensorflow as tf
    >>> double = keras.layers.Rescaling(2.0)
    >>> _ = double(tf.zeros([1, 2]))  # Layers must be built before export.
    >>> spec = tf.TensorSpec([None, 2], tf.float32)
    >>> export_dir = os.path.join(tempfile.mkdtemp(), "double")
    >>> _ = export_endpoints(export_dir, {"double": (lambda x: {"y": double(x)}, [spec])},
    ...                      tracked=[double])
    >>> loaded = tf.saved_model.load(export_dir)
    >>> loaded.signatures["double"](tf.ones([1, 2]))["y"].numpy().tolist()
    [[2.0, 2.0]]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

import keras
import tensorflow as tf

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.disk_space import explain_disk_full, variables_bytes
from albert_tf.export.saved_state import saved_root
from albert_tf.export.warmup import write_warmup_requests
from albert_tf.output_lock import output_lock

# name -> (function, input signature); the function returns a dict of named tensors.
Endpoints = Mapping[str, tuple[Callable, Sequence[tf.TensorSpec]]]


def export_endpoints(
    export_dir: str,
    endpoints: Endpoints,
    tracked: Sequence[keras.layers.Layer],
    overwrite: bool = False,
) -> str:
    """Writes a SavedModel at `export_dir` whose signatures are `endpoints`; returns its path.

    Args:
        export_dir: directory to create.
        endpoints: signature name -> (function, input `tf.TensorSpec`s).
        tracked: every built Keras layer or model the functions use through its variables or
            resources (these are saved).
        overwrite: replace an existing `export_dir`, once the new one is complete.
    """
    export_dir = os.path.abspath(os.fspath(export_dir))
    with output_lock(export_dir):
        return _write_endpoints(export_dir, endpoints, tracked, overwrite)


def _write_endpoints(
    export_dir: str,
    endpoints: Endpoints,
    tracked: Sequence[keras.layers.Layer],
    overwrite: bool,
) -> str:
    refuse_existing(export_dir, overwrite)
    root = saved_root(tracked)
    signatures = {}
    for name, (function, input_signature) in endpoints.items():
        traced = tf.function(function, input_signature=list(input_signature), autograph=False)
        setattr(root, name, traced)  # Callable on the loaded object too.
        signatures[name] = traced
    signatures.setdefault("serving_default", next(iter(signatures.values())))
    needed = lambda: variables_bytes(v for layer in tracked for v in layer.weights)  # noqa: E731
    with (
        explain_disk_full(export_dir, needed),
        atomic_output_directory(export_dir, overwrite) as temp_dir,
    ):
        tf.saved_model.save(root, temp_dir, signatures=signatures)
        write_warmup_requests(temp_dir, tracked)
    return export_dir
