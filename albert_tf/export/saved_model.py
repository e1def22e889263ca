"""`export_saved_model`: an ALBERT SavedModel that tokenizes in the graph, plus a Keras bundle.

The export directory:

    export_dir/
        saved_model.pb, variables/   signatures serving_default, encode_text, encode_text_pair,
                                     fill_mask (see serving_module.py)
        assets/<spm file>            the SentencePiece model (a tracked tf.saved_model.Asset)
        assets.extra/                tf_serving_warmup_requests: TF Serving warm-up records,
                                     one per signature (see warmup.py)
        keras/                       encoder.keras, albert_config.json, spm.model,
                                     tokenizer_config.json (see encoder_bundle.py)

Loading the SavedModel needs only `tensorflow` and `tensorflow_text` (import it first: it
registers the SentencePiece and normalization ops), not albert_tf:

    import tensorflow as tf, tensorflow_text  # noqa: F401
    albert = tf.saved_model.load(export_dir)
    albert.signatures["encode_text"](text_a=tf.constant(["Hello world."]))["pooled_output"]

`saved_model_cli show --all --dir export_dir` lists the signatures. `saved_model_cli run` loads
the whole graph and has no flag to load custom ops, so run it with tensorflow_text imported at
start-up, e.g. a directory on PYTHONPATH holding `sitecustomize.py` = `import tensorflow_text`:

    PYTHONPATH=hook_dir saved_model_cli run --dir export_dir --tag_set serve \
        --signature_def encode_text --input_exprs 'text_a=["Hello world."]'

(TF Serving likewise needs a build with the tensorflow-text ops, as for any tf-text model.)
The Keras objects are kept out of the SavedModel's object graph so that these TF1-style loaders
find the variables (see serving_module.py).

Everything is written under a temporary name next to `export_dir` and renamed at the end, so a
failed export leaves nothing behind and an existing export is replaced only when complete.

Illustration (not run):
    export_saved_model("/tmp/albert_export", "/tmp/workdir", "/tmp/spm.model",
    ...                    albert_config="/tmp/workdir/albert_config.json",
    ...                    runtime=Runtime.plain())
    '/tmp/albert_export'
"""

from __future__ import annotations

import collections
import logging
import os

import keras
import tensorflow as tf
from tensorflow.core.protobuf import trackable_object_graph_pb2

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.config import AlbertConfig
from albert_tf.disk_space import explain_disk_full, variables_bytes
from albert_tf.errors import MissingInputError, UserError
from albert_tf.export.encoder_bundle import BUNDLE_SUBDIR, save_encoder_bundle
from albert_tf.export.model_kind import ENCODER, model_kind
from albert_tf.export.serving_copy import serving_copy
from albert_tf.export.serving_module import AlbertServingModule
from albert_tf.export.warmup import write_warmup_requests
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.output_lock import output_lock
from albert_tf.runtime.runtime import Runtime
from albert_tf.tokenization.model_proto import load_albert_model_proto
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from albert_tf.training.checkpointing import find_checkpoint, read_into

AlbertModel = AlbertEncoder | AlbertPretrainer


def load_albert_model(
    checkpoint: str, albert_config: AlbertConfig | str | None = None
) -> AlbertModel:
    """Loads a model to export from a `.keras` file or a training checkpoint.

    Args:
        checkpoint: an `AlbertEncoder`/`AlbertPretrainer` `.keras` file (e.g. the pretraining
            workdir's `encoder.keras`), or a `tf.train.Checkpoint` of the pretrainer written by
            `albert_tf.training.pretrain` (its directory or a `ckpt-N` prefix; the optimizer and
            step are ignored).
        albert_config: the `AlbertConfig` or its JSON file; required for a checkpoint, and
            checked against a `.keras` file's own config when given.

    Returns:
        An `AlbertPretrainer` (checkpoints; it has the masked-LM head) or what the `.keras` holds.

    Raises:
        FileNotFoundError: nothing at `checkpoint`.
        ValueError: the checkpoint does not match the config (names the differing variable).
    """
    if isinstance(albert_config, str):
        albert_config = AlbertConfig.from_file_or_preset(albert_config)
    if checkpoint.endswith(".keras"):
        return _load_keras_file(checkpoint, albert_config)
    if albert_config is None:
        raise UserError(
            f"{checkpoint}: a training checkpoint needs the albert_config.json it was trained "
            "with (--albert_config_file)."
        )
    prefix = find_checkpoint(checkpoint)
    if prefix is None:
        raise MissingInputError(
            f"{checkpoint}: no checkpoint found; pass a .keras file, a pretraining workdir with "
            "checkpoints, or a ckpt-N prefix."
        )
    model = AlbertPretrainer(AlbertEncoder(albert_config))
    _restore_pretrainer(model, prefix)
    logging.info("Restored %s.", prefix)
    return model


def _load_keras_file(path: str, albert_config: AlbertConfig | None) -> AlbertModel:
    if not os.path.isfile(path):
        raise MissingInputError(f"{path}: no such .keras file.")
    model = keras.saving.load_model(path, compile=False)
    if model_kind(model) != ENCODER:
        raise UserError(
            f"{path}: holds a {type(model).__name__}, not an ALBERT encoder.",
            fix="export a fine-tuned model from its run directory (its family's SavedModel)",
        )
    check_albert_config(path, model, albert_config)
    return model


def check_albert_config(
    path: str, model: keras.Model, albert_config: AlbertConfig | str | None
) -> None:
    """A `UserError` when `albert_config` (a config, its file or a preset name; None: no check)
    is not the config of `model`'s encoder, the model at `path`."""
    if isinstance(albert_config, str):
        albert_config = AlbertConfig.from_file_or_preset(albert_config)
    config = model.config if isinstance(model, AlbertEncoder) else model.encoder.config
    if albert_config is not None and config != albert_config:
        raise UserError(
            f"{path}: its AlbertConfig differs from the one given "
            f"({_config_difference(config, albert_config)}); pass the config it was trained with."
        )


def _restore_pretrainer(model: AlbertPretrainer, prefix: str) -> None:
    """Restores the pretrainer's variables; every model variable of the checkpoint must be used."""
    read_into(
        tf.train.Checkpoint(model=model),
        prefix,
        f"{prefix}: the checkpoint does not match the AlbertConfig ({{reason}}). Pass the "
        "albert_config.json the checkpoint was trained with.",
    )
    # Restoring only checks that our variables exist in the checkpoint; a checkpoint of a
    # bigger model (e.g. more unshared layers) would also restore. Compare shapes to catch it.
    unused = collections.Counter(_checkpoint_variable_shapes(prefix, "model"))
    unused.subtract(tuple(variable.shape) for variable in _unique(model.variables))
    leftover = [shape for shape, count in unused.items() if count > 0]
    if leftover:
        raise UserError(
            f"{prefix}: {sum(unused[s] for s in leftover)} model variables of the checkpoint "
            f"(shapes {leftover[:3]}...) have no place in a model with this AlbertConfig. Pass "
            "the albert_config.json the checkpoint was trained with."
        )


def _checkpoint_variable_shapes(prefix: str, child: str) -> list[tuple[int, ...]]:
    """Shapes of the variables reachable from the root's `child` in a checkpoint's object graph.

    Walking the object graph (not key names) matters: a variable's key uses the first path that
    reaches it, often through the optimizer.
    """
    reader = tf.train.load_checkpoint(prefix)
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    shapes = reader.get_variable_to_shape_map()
    roots = [ref.node_id for ref in graph.nodes[0].children if ref.local_name == child]
    seen, stack, found = set(roots), list(roots), []
    while stack:
        node = graph.nodes[stack.pop()]
        for attribute in node.attributes:
            if attribute.name == "VARIABLE_VALUE":
                found.append(tuple(shapes[attribute.checkpoint_key]))
        for ref in node.children:
            if ref.node_id not in seen:
                seen.add(ref.node_id)
                stack.append(ref.node_id)
    return found


def _unique(variables: list) -> list:
    return list({id(variable): variable for variable in variables}.values())


def _config_difference(a: AlbertConfig, b: AlbertConfig) -> str:
    first, second = a.to_dict(), b.to_dict()
    return ", ".join(f"{k}: {first[k]!r} vs {second[k]!r}" for k in first if first[k] != second[k])


def export_saved_model(
    export_dir: str,
    model: AlbertModel | str,
    spm_model_file: str,
    albert_config: AlbertConfig | str | None = None,
    seq_length: int = 128,
    do_lower_case: bool = True,
    top_k: int = 5,
    overwrite: bool = False,
    *,
    runtime: Runtime,
) -> str:
    """Exports the SavedModel and the Keras bundle into `export_dir` (see the module docstring).

    Args:
        export_dir: the directory to create.
        model: an `AlbertEncoder`, an `AlbertPretrainer` (adds the `fill_mask` signature), or a
            path for `load_albert_model` (`.keras` file or training checkpoint).
        spm_model_file: the SentencePiece model the encoder was trained with.
        albert_config: `AlbertConfig` or JSON file; needed when `model` is a checkpoint path.
        seq_length: packed length of `encode_text*` and `fill_mask`.
        do_lower_case: lowercase while normalizing, as in training.
        top_k: candidates per `[MASK]` in `fill_mask`.
        overwrite: replace an existing `export_dir` (only once the new export is complete).
        runtime: its `compiled_serving` compiles one-text calls (`Runtime.plain()`: none).

    Returns:
        `export_dir`.
    """
    export_dir = os.path.abspath(os.fspath(export_dir))
    with output_lock(export_dir):
        return _export_saved_model(
            export_dir,
            model,
            spm_model_file,
            albert_config,
            seq_length,
            do_lower_case,
            top_k,
            overwrite,
            runtime,
        )


def _export_saved_model(
    export_dir: str,
    model: AlbertModel | str,
    spm_model_file: str,
    albert_config: AlbertConfig | str | None,
    seq_length: int,
    do_lower_case: bool,
    top_k: int,
    overwrite: bool,
    runtime: Runtime,
) -> str:
    refuse_existing(export_dir, overwrite)  # Before the slow part; checked again at the end.
    load_albert_model_proto(spm_model_file)  # Fail early on a missing or invalid tokenizer.
    if isinstance(model, str):
        model = load_albert_model(model, albert_config)
    # A copy where `model` computes other than the plain chains (it trained with fused ones).
    encoder, masked_lm_head = _parts(serving_copy(model, stored_as_computed=False))
    if masked_lm_head is None:
        logging.warning("Exporting an encoder without masked-LM head: no fill_mask signature.")
    module = AlbertServingModule(
        encoder,
        spm_model_file,
        seq_length=seq_length,
        do_lower_case=do_lower_case,
        masked_lm_head=masked_lm_head,
        top_k=top_k,
        compiled_serving=runtime.compiled_serving,
    )

    signatures = module.signatures()
    # The SavedModel and the Keras bundle each hold the weights.
    needed = lambda: 2 * variables_bytes(model.weights)  # noqa: E731
    with (
        explain_disk_full(export_dir, needed),
        atomic_output_directory(export_dir, overwrite) as temp_dir,
    ):
        tf.saved_model.save(module, temp_dir, signatures=signatures)
        tokenizer = AlbertTokenizer(spm_model_file, do_lower_case=do_lower_case)
        write_warmup_requests(temp_dir, [tokenizer.text_tokenizer_layer, encoder])
        save_encoder_bundle(
            os.path.join(temp_dir, BUNDLE_SUBDIR),
            encoder,
            spm_model_file,
            do_lower_case=do_lower_case,
            seq_length=seq_length,
        )
    logging.info("Exported %s (signatures: %s).", export_dir, ", ".join(signatures))
    return export_dir


def _parts(model: AlbertModel):
    if isinstance(model, AlbertPretrainer):
        return model.encoder, model.masked_lm_head
    if isinstance(model, AlbertEncoder):
        return model, None
    raise TypeError(f"Expected an AlbertEncoder or AlbertPretrainer, got {type(model).__name__}.")
