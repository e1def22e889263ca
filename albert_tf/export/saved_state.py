"""What a SavedModel root tracks for functions over Keras layers, and why each function is
traced once.

Every albert_tf SavedModel keeps the Keras objects out of its object graph (saved as Keras layers,
TF1-style loaders such as `saved_model_cli run` and TF Serving do not find their variables) and
tracks what the functions use instead: the layers' weights as variable lists and the tokenizer's
SentencePiece resource (`trackable_resources`), as `keras.export.ExportArchive` does.

Unlike `ExportArchive`, nothing here traces a function before `tf.saved_model.save`: the signatures
are passed as `tf.function`s with an input signature, so that the save traces each once. A trace
made earlier (`get_concrete_function`, or `ExportArchive`'s search for the variables a function
uses) is made outside the save's context, which is part of `tf.function`'s cache key: the save
would trace every function a second time, doubling the export's cost. Where a function must be
traced before the save (one without an input signature, whose traces the save lists: the
Reusable SavedModel's `__call__(inputs, training)`), `tracing_for_save` makes those traces in
the save's context, where the save finds them.

Example:
    >>> import keras, tempfile
    >>> dense = keras.layers.Dense(2)
    >>> _ = dense(tf.zeros([1, 3]))
    >>> root = saved_root([dense])
    >>> root.double = tf.function(lambda x: {"y": 2 * dense(x)},
    ...                           input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    >>> export_dir = tempfile.mkdtemp()
    >>> tf.saved_model.save(root, export_dir, signatures={"double": root.double})
    >>> loaded = tf.saved_model.load(export_dir)
    >>> [v.shape.as_list() for v in loaded.trainable_variables]
    [[3, 2], [2]]
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

import keras
import tensorflow as tf

# Private (TensorFlow 2.21): the context `tf.saved_model.save` traces in, part of `tf.function`'s
# cache key. Used by `tracing_for_save` only; tests/export/test_saved_state.py fails if a trace made
# there is traced again by the save.
from tensorflow.python.saved_model import save_context

TrackableResource = tf.saved_model.experimental.TrackableResource


def trackable_resources(objects: Iterable) -> list[TrackableResource]:
    """The TensorFlow resources (e.g. the tokenizer's SentencePiece model) held by `objects`."""
    resources = {}
    for root in objects:
        for trackable in tf.train.TrackableView(root).descendants():
            if isinstance(trackable, TrackableResource):
                resources.setdefault(id(trackable), trackable)
    return list(resources.values())


@contextlib.contextmanager
def tracing_for_save() -> Iterator[tf.saved_model.SaveOptions]:
    """Traces made inside are the ones `tf.saved_model.save(..., options=<the yielded options>)`
    keeps, instead of tracing each function again in its own context (see the module docstring).
    """
    options = tf.saved_model.SaveOptions()
    with save_context.save_context(options):
        yield options


def tensorflow_variable(weight) -> tf.Variable:
    """The `tf.Variable` behind a Keras weight: what the traced functions capture.

    Tracked as the Keras variable instead, the weights would be saved apart from what the
    graph reads, and TF1-style loaders (`saved_model_cli run`, the LiteRT converter) would run
    on uninitialized variables.
    """
    variable = weight.value if isinstance(weight, keras.Variable) else weight
    if not isinstance(variable, tf.Variable):
        raise TypeError(f"{weight.path}: a {type(variable).__name__}, not a tf.Variable.")
    return variable


def _each_once(variables: Iterable[tf.Variable]) -> list[tf.Variable]:
    return list({id(v): v for v in variables}.values())


def saved_variables(layers: Iterable) -> list[tf.Variable]:
    """The `tf.Variable`s of `layers`' weights, each once (tied weights are shared)."""
    return _each_once(tensorflow_variable(w) for layer in layers for w in layer.weights)


class SavedRoot(tf.Module):
    """A SavedModel root whose `variables`, `trainable_variables` and `non_trainable_variables`
    are saved attributes, as the Reusable SavedModel API (TF Hub) and `ExportArchive`'s exports
    have them: plain attributes here, not `tf.Module`'s read-only properties. (A
    `tf.train.Checkpoint` would allow them too, but saves its `save_counter` along.)"""

    variables = trainable_variables = non_trainable_variables = ()

    def track_variables(self, variables: Iterable[tf.Variable]) -> None:
        """Sets the three variable lists from `variables` (each once)."""
        self.variables = _each_once(variables)
        self.trainable_variables = [v for v in self.variables if v.trainable]
        self.non_trainable_variables = [v for v in self.variables if not v.trainable]


def saved_root(layers: Iterable) -> SavedRoot:
    """A SavedModel root tracking `layers`' weights and resources (not the layers themselves).

    Functions set as its attributes are callable on the loaded object.
    """
    layers = list(layers)
    root = SavedRoot()
    root.track_variables(saved_variables(layers))
    root.resources = trackable_resources(layers)
    return root
