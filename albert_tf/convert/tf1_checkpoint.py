"""Original TF1 ALBERT checkpoints (`model.ckpt-*`): read into albert_tf, write from it.

Reading uses `tf.train.load_checkpoint` (no TF1 graph needed). Optimizer slots
(`<var>/adam_m`, `<var>/adam_v`, LAMB's, Momentum/Adam ones), `global_step`
and loss-scale bookkeeping are ignored. Loading into an `AlbertEncoder` takes the
backbone (`bert/...`) and skips any head; loading into an `AlbertPretrainer` needs
the pretraining heads (`cls/...`), into a task model its head (`task_heads.py`).

Writing uses the `SaveV2` op with the exact original tensor names, so
`tf.train.load_checkpoint(prefix).get_variable_to_shape_map()` lists exactly
the original variables (plus `global_step` when given) -- no object-graph
suffixes as `tf.train.Checkpoint` would add -- and the original code's
`init_checkpoint` / assignment maps find them.

Illustration (not run):
    encoder = AlbertEncoder(AlbertConfig.from_json_file("albert_base/albert_config.json"))
    load_tf1_checkpoint(encoder, "albert_base/model.ckpt-best")
    save_tf1_checkpoint(encoder, "/tmp/out/model.ckpt-0", global_step=0)
    '/tmp/out/model.ckpt-0'
"""

from __future__ import annotations

import glob
import os
import tempfile

import keras
import numpy as np
import tensorflow as tf

from albert_tf.convert.checkpoint_mismatch import check_names_and_shapes
from albert_tf.convert.weight_names import named_weights, split_model
from albert_tf.errors import MissingInputError, UserError

# Last name components of optimizer slots, and whole names of bookkeeping variables.
OPTIMIZER_SLOT_NAMES = frozenset(
    {
        "adam_m",
        "adam_v",
        "lamb_m",
        "lamb_v",
        "Adam",
        "Adam_1",
        "Momentum",
        "ExponentialMovingAverage",
    }
)
BOOKKEEPING_NAMES = frozenset({"global_step", "current_loss_scale", "good_steps"})
HEAD_PREFIX = "cls/"


def is_ignored_tf1_name(name: str) -> bool:
    """Whether a checkpoint tensor is optimizer or training state, not a model weight."""
    return name in BOOKKEEPING_NAMES or name.rsplit("/", 1)[-1] in OPTIMIZER_SLOT_NAMES


def resolve_tf1_checkpoint(path: str) -> str:
    """A checkpoint prefix from a prefix, a `.index`/`.data-*` file or a directory.

    A directory needs a `checkpoint` state file or exactly one `*.index` file (the
    original releases ship `model.ckpt-best` without a state file).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        latest = tf.train.latest_checkpoint(path)
        if latest:
            return latest
        indexes = sorted(glob.glob(os.path.join(path, "*.index")))
        if len(indexes) != 1:
            raise MissingInputError(
                f"{path}: expected one TF1 checkpoint (a `checkpoint` file or one *.index), "
                f"found {[os.path.basename(i) for i in indexes]}; pass the prefix, e.g. "
                f"{os.path.join(path, 'model.ckpt-best')}."
            )
        return indexes[0][: -len(".index")]
    for suffix in (".index", ".meta"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    if ".data-" in os.path.basename(path):
        return path[: path.rindex(".data-")]
    if not os.path.exists(path + ".index"):
        raise MissingInputError(f"{path}: no TF1 checkpoint ({path}.index does not exist).")
    return path


def read_tf1_checkpoint(path: str) -> dict[str, np.ndarray]:
    """The model tensors of an original checkpoint (optimizer slots etc. dropped)."""
    prefix = resolve_tf1_checkpoint(path)
    try:
        reader = tf.train.load_checkpoint(prefix)
    except (tf.errors.OpError, ValueError) as e:
        raise UserError(f"{prefix}: not a readable TF checkpoint ({e}).") from e
    return {
        name: reader.get_tensor(name)
        for name in reader.get_variable_to_shape_map()
        if not is_ignored_tf1_name(name)
    }


def load_tf1_weights(model: keras.Model, tensors: dict[str, np.ndarray], source: str) -> None:
    """Assigns original-named `tensors` to `model`; all-or-nothing (`check_names_and_shapes`)."""
    _, pretrainer = split_model(model)
    weights = [w for w in named_weights(model) if w.tf1_name is not None]
    has_heads = any(n.startswith(HEAD_PREFIX) for n in tensors)
    if pretrainer is None:  # The backbone of any checkpoint, plus a task model's own head.
        expected = {w.tf1_name for w in weights}
        tensors = {n: t for n, t in tensors.items() if n in expected or n.startswith("bert/")}
    check_names_and_shapes(
        {w.tf1_name: w.tf1_shape for w in weights},
        {name: tensor.shape for name, tensor in tensors.items()},
        source,
        hint=(
            "The checkpoint has no pretraining heads (cls/...): load it into an AlbertEncoder."
            if pretrainer is not None and not has_heads
            else "Check that the albert_config.json matches the checkpoint."
        ),
    )
    for weight in weights:
        weight.assign(tensors[weight.tf1_name], weight.tf1_transpose)


def load_tf1_checkpoint(model: keras.Model, path: str) -> None:
    """Loads an original TF1 checkpoint (prefix or directory) into an encoder or pretrainer."""
    load_tf1_weights(model, read_tf1_checkpoint(path), resolve_tf1_checkpoint(path))


def tf1_tensors(model: keras.Model) -> dict[str, np.ndarray]:
    """The model's weights under their original names, as float32 arrays."""
    tensors = {}
    for weight in named_weights(model):
        if weight.tf1_name is not None:
            tensors[weight.tf1_name] = weight.value(weight.tf1_transpose)
    return tensors


def save_tf1_checkpoint(model: keras.Model, prefix: str, global_step: int | None = None) -> str:
    """Writes `prefix.index` and `prefix.data-00000-of-00001` with the original names.

    The files are written under a temporary prefix and renamed (data first, index
    last), so an interrupted save never leaves a readable partial checkpoint.
    Returns `prefix`.
    """
    tensors = tf1_tensors(model)
    if global_step is not None:
        tensors["global_step"] = np.asarray(global_step, "int64")
    directory = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(directory, exist_ok=True)
    temp_dir = tempfile.mkdtemp(prefix=".tmp-ckpt-", dir=directory)
    temp_prefix = os.path.join(temp_dir, "ckpt")
    names = sorted(tensors)
    try:
        tf.raw_ops.SaveV2(
            prefix=temp_prefix,
            tensor_names=names,
            shape_and_slices=[""] * len(names),
            tensors=[tf.constant(tensors[name]) for name in names],
        )
        for path in sorted(glob.glob(temp_prefix + ".data-*")):
            os.replace(path, prefix + path[len(temp_prefix) :])
        os.replace(temp_prefix + ".index", prefix + ".index")
    finally:
        for leftover in glob.glob(os.path.join(temp_dir, "*")):
            os.remove(leftover)
        os.rmdir(temp_dir)
    return prefix
