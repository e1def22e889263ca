"""keras-hub preset directories: written from albert_tf models, read into albert_tf models.

A preset (keras-hub 0.32, `keras_hub/src/utils/preset_utils.py`) is what
`keras_hub.models.AlbertBackbone.from_preset(dir)` and `AlbertTextClassifier.from_preset(dir)`
load with keras-hub's own classes, albert_tf not needed:

    config.json                      the AlbertBackbone (Keras-serialized, `registered_name`)
    model.weights.h5                 its weights
    tokenizer.json                   the AlbertTokenizer
    assets/tokenizer/vocabulary.spm  its SentencePiece model (keras_hub_tokenizer.py)
    metadata.json                    Keras and keras-hub versions, parameter count
    task.json, task.weights.h5       a classifier: AlbertTextClassifier and its head
    preprocessor.json                a classifier: AlbertTextClassifierPreprocessor (length)

The files are written by keras-hub itself (`save_to_preset` of models built here and assigned
albert_tf's weights, `keras_hub_weights.py`), so their layout is keras-hub's by construction;
keras-hub is an optional dependency, imported when a preset is written or read.

Written: an `AlbertEncoder` as a backbone preset, an `AlbertClassifier` (`TaskHead.keras_hub_task`)
as a text classifier preset with the preprocessor at `seq_length`; a pretrainer as its encoder
(keras-hub's ALBERT has no sentence-order head). What keras-hub cannot hold is refused before
anything is written (keras_hub_config.py; task heads keras-hub has no task for).
Read: an `AlbertBackbone` preset as an `AlbertEncoder`, one with an `AlbertTextClassifier`
task as an `AlbertClassifier`; presets of other architectures are refused.

Illustration (not run):
    write_keras_hub(classifier, "/tmp/preset", "spm.model", seq_length=128)
    keras_hub.models.AlbertTextClassifier.from_preset("/tmp/preset").predict(["A fine film."])
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import keras

from albert_tf.convert.keras_hub_config import albert_config_from_keras_hub, backbone_kwargs
from albert_tf.convert.keras_hub_tokenizer import normalizing_model_proto
from albert_tf.convert.keras_hub_weights import copy_from_keras_hub, copy_to_keras_hub
from albert_tf.convert.task_heads import TASK_HEADS, TaskHead, task_head_for_model
from albert_tf.convert.weight_names import split_model
from albert_tf.errors import MissingInputError, UserError
from albert_tf.file_names import SPM_FILE, TASK_FILE, TOKENIZER_CONFIG_FILE
from albert_tf.models.encoder import AlbertEncoder

CONFIG_FILE = "config.json"
TASK_CONFIG_FILE = "task.json"
PREPROCESSOR_FILE = "preprocessor.json"
VOCABULARY_FILE = os.path.join("assets", "tokenizer", "vocabulary.spm")
_BACKBONE = "AlbertBackbone"


def _import_keras_hub():
    try:
        import keras_hub  # Optional: the test extra's.
    except ImportError as error:
        raise UserError(
            "keras-hub presets need the keras-hub package",
            fix="pip install keras-hub==0.32.0 (in albert_tf's test extra)",
        ) from error
    return keras_hub


def _read_json(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            values = json.load(f)
    except json.JSONDecodeError as error:
        raise UserError(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from error
    if not isinstance(values, dict):
        raise UserError(f"{path}: expected a JSON object")
    return values


def _class_name(values: dict[str, Any]) -> str:
    """`"AlbertBackbone"` of `"registered_name": "keras_hub>AlbertBackbone"`."""
    return str(values.get("registered_name") or values.get("class_name")).rpartition(">")[2]


def _read_backbone_config(path: str) -> dict[str, Any]:
    config_path = os.path.join(path, CONFIG_FILE)
    if not os.path.isfile(config_path):
        raise MissingInputError(
            f"{path}: no keras-hub {CONFIG_FILE}; pass a directory written by save_to_preset"
        )
    values = _read_json(config_path)
    if "registered_name" not in values:
        raise UserError(
            f"{config_path}: not a keras-hub preset (no registered_name)",
            fix="for a Hugging Face directory use --from=hf",
        )
    if _class_name(values) != _BACKBONE:
        raise UserError(
            f"{config_path}: a keras-hub {_class_name(values)} preset, not ALBERT "
            f"({_BACKBONE}); albert_tf reads ALBERT presets only"
        )
    return values


def _preset_task(path: str, heads: bool | None) -> tuple[TaskHead | None, dict[str, Any]]:
    """The albert_tf head of the preset's task and the task's config, or (None, {})."""
    task_path = os.path.join(path, TASK_CONFIG_FILE)
    task_values = _read_json(task_path) if os.path.isfile(task_path) else {}
    if heads is False or not task_values:
        if heads:
            raise UserError(f"{path}: a backbone preset without a task; heads=True needs one")
        return None, {}
    name = _class_name(task_values)
    for head in TASK_HEADS:
        if head.keras_hub_task == name:
            return head, task_values["config"]
    if heads:
        raise UserError(f"{task_path}: albert_tf has no counterpart of keras-hub's {name}")
    logging.warning(
        "%s: keras-hub's %s head has no albert_tf counterpart; read the encoder.", task_path, name
    )
    return None, {}


def load_keras_hub_model(path: str, heads: bool | None = None) -> keras.Model:
    """The albert_tf model of the keras-hub preset directory `path` (see the module docstring).

    `heads=None` reads a classifier preset as an `AlbertClassifier`, `False` reads its encoder.
    """
    values = _read_backbone_config(path)
    config = albert_config_from_keras_hub(values["config"], os.path.join(path, CONFIG_FILE))
    head, task_config = _preset_task(path, heads)
    keras_hub = _import_keras_hub()
    encoder = AlbertEncoder(config)
    if head is None:
        source = keras_hub.models.AlbertBackbone.from_preset(path, dtype="float32")
        model = encoder
    else:  # AlbertTextClassifier, the one keras-hub ALBERT task albert_tf has (TaskHead).
        task_class = getattr(keras_hub.models, head.keras_hub_task)
        # No tokenizer needed; float32 whatever the global policy (it would round the weights).
        source = task_class.from_preset(path, preprocessor=None, dtype="float32")
        if task_config.get("activation") not in (None, "linear"):
            logging.warning(
                "%s: albert_tf's classifier gives the logits, not their %s.",
                path,
                task_config["activation"],
            )
        model = head.build(
            encoder,
            {"num_labels": source.num_classes, "classifier_dropout_prob": source.dropout},
        )
    copy_from_keras_hub(source, model, path)
    return model


def preset_tokenizer(fmt: str, path: str) -> tuple[str | None, int | None]:
    """(SentencePiece model, sequence length) that came with the input `path` of format `fmt`.

    A keras-hub preset's vocabulary and preprocessor length; an albert_tf directory's (or
    file's directory's) `spm.model` with the fine-tuning run's `max_seq_length` (`task.json`)
    or the encoder bundle's `seq_length`. None where there are none.
    """
    directory = path if os.path.isdir(path) else os.path.dirname(path)
    if fmt == "keras_hub":
        spm_file, length_file, key = VOCABULARY_FILE, PREPROCESSOR_FILE, "sequence_length"
    elif fmt == "albert_tf":
        spm_file = SPM_FILE
        length_file, key = (TASK_FILE, "max_seq_length")
        if not os.path.isfile(os.path.join(directory, TASK_FILE)):
            length_file, key = (TOKENIZER_CONFIG_FILE, "seq_length")
    else:
        return None, None
    spm_path = os.path.join(directory, spm_file)
    length_path = os.path.join(directory, length_file)
    length = None
    if os.path.isfile(length_path):
        values = _read_json(length_path)
        length = values.get("config", values).get(key)
    return (spm_path if os.path.isfile(spm_path) else None), length


def write_keras_hub(
    model: keras.Model,
    directory: str,
    spm_model_file: str | None,
    do_lower_case: bool = True,
    seq_length: int | None = None,
) -> None:
    """Writes `model` as a keras-hub preset into the existing empty `directory`.

    Args:
        model: an `AlbertEncoder`, `AlbertClassifier` or `AlbertPretrainer` (its encoder).
        directory: the output directory.
        spm_model_file: the SentencePiece model of the preset's tokenizer.
        do_lower_case: the tokenizer's casing (built into the preset's normalizer).
        seq_length: a classifier's preprocessor length (default: `max_position_embeddings`).
    """
    encoder, pretrainer = split_model(model)
    config = encoder.config
    task_head = task_head_for_model(model)
    if task_head is not None and task_head.keras_hub_task is None:
        raise UserError(
            f"keras-hub has no task for {type(model).__name__} (its ALBERT tasks: "
            "AlbertTextClassifier, AlbertMaskedLM)",
            fix="write the encoder with --heads=no, or use --to=hf",
        )
    kwargs = backbone_kwargs(config)  # Refuses what keras-hub cannot hold.
    seq_length = seq_length or config.max_position_embeddings
    if not 3 <= seq_length <= config.max_position_embeddings:
        raise UserError(
            f"seq_length={seq_length}: the preprocessor packs [CLS] A [SEP] into at most "
            f"max_position_embeddings={config.max_position_embeddings} positions",
            where="--seq_length",
        )
    if not spm_model_file:
        raise UserError(
            "a keras-hub preset needs the SentencePiece model of its tokenizer",
            fix="pass --spm_model_file",
        )
    proto = normalizing_model_proto(spm_model_file, do_lower_case)
    keras_hub = _import_keras_hub()
    backbone = keras_hub.models.AlbertBackbone(**kwargs, dtype="float32")
    tokenizer = keras_hub.models.AlbertTokenizer(proto=proto)
    if task_head is None:
        if pretrainer is not None:
            logging.warning("keras-hub's ALBERT has no sentence-order head: writing the encoder.")
        copy_to_keras_hub(encoder, backbone)
        backbone.save_to_preset(directory)
        tokenizer.save_to_preset(directory)
        return
    # AlbertTextClassifier, the one keras-hub ALBERT task albert_tf has (TaskHead.keras_hub_task).
    preprocessor = keras_hub.models.AlbertTextClassifierPreprocessor(
        tokenizer, sequence_length=seq_length
    )
    classifier = keras_hub.models.AlbertTextClassifier(
        backbone, model.num_outputs, preprocessor=preprocessor, dropout=model.dropout_rate
    )
    copy_to_keras_hub(model, classifier)
    classifier.save_to_preset(directory)
