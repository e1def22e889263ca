"""Checkpoint conversion: albert_tf, the original TF1 release, Hugging Face and keras-hub.

Formats and their on-disk layouts:

* `"tf1"`: a checkpoint prefix (`.../model.ckpt-best`) or a directory holding
  one; the config is `albert_config.json` beside it unless given. Written as a
  directory: `model.ckpt-0.{index,data-00000-of-00001}` (original names,
  `global_step` 0), `checkpoint`, `albert_config.json` (original fields), and the
  SentencePiece model when given.
* `"hf"`: a Hugging Face directory (`config.json` + `model.safetensors` or
  `pytorch_model.bin`). Written as `config.json`, `model.safetensors` and, with a
  SentencePiece model, `spiece.model`, `tokenizer.json`, `tokenizer_config.json`,
  `special_tokens_map.json` (see hf_tokenizer.py).
* `"albert_tf"`: an `encoder.keras` / `pretrainer.keras` / fine-tuned `model.keras`
  file, or a directory with them, or a pretraining run (workdir or `ckpt-N`, heads
  included). Written as a directory: `encoder.keras` (what pretraining's
  `init_checkpoint` and fine-tuning read), `pretrainer.keras` when the model has the
  pretraining heads, `model.keras` for a fine-tuned task model,
  `albert_config.json`, and the SentencePiece model (from a keras-hub preset: an encoder
  bundle, `spm.model` + `tokenizer_config.json`, what fine-tuning's `--init_checkpoint` reads).
  A task model is written as a finished fine-tuning run besides: `task.json` (its family,
  labels from the Hugging Face `id2label`, casing, the original recipe's lengths; see
  `TaskHead.task_json`) and the tokenizer as `spm.model`, so every export (SavedModel, LiteRT,
  TF Hub, ONNX) and `--do_eval` take the directory as they take a run's `--output_dir`.
* `"keras_hub"`: a keras-hub preset directory (`config.json` of an `AlbertBackbone`,
  `model.weights.h5`, the tokenizer; a classifier's `task.json`, `preprocessor.json`): see
  keras_hub_preset.py. Written from an encoder or classifier with its SentencePiece model (by
  default the `spm.model` of an albert_tf directory) and, for a classifier, the preprocessor's
  `seq_length` (by default the fine-tuning run's); read with the preset's own tokenizer.

Models with the MLM and SOP heads load as `AlbertPretrainer`, fine-tuned task
models (Hugging Face `AlbertForSequenceClassification`, ...; see task_heads.py) as
their albert_tf task model, others as `AlbertEncoder` (or ask with
`heads=True/False`). Outputs are written under a temporary name and renamed at the
end; an existing output is refused unless `overwrite`.

Illustration (not run):
convert_checkpoint("tf1", "albert_base/model.ckpt-best", "hf",
                   "/tmp/albert_base_hf", spm_model_file="albert_base/30k-clean.model")
'/tmp/albert_base_hf'
"""

from __future__ import annotations

import json
import os
import shutil

import keras

from albert_tf.atomic_files import atomic_output_directory, refuse_existing
from albert_tf.config import AlbertConfig
from albert_tf.convert.config_conversion import (
    albert_config_from_hf_dict,
    hf_config_dict,
    original_config_dict,
)
from albert_tf.convert.formats import check_format
from albert_tf.convert.hf_checkpoint import (
    CONFIG_NAME,
    SAFETENSORS_NAME,
    load_hf_weights,
    read_hf_state_dict,
    save_hf_weights,
)
from albert_tf.convert.hf_tokenizer import write_hf_tokenizer
from albert_tf.convert.keras_hub_preset import (
    load_keras_hub_model,
    preset_tokenizer,
    write_keras_hub,
)
from albert_tf.convert.task_heads import (
    TASK_HEADS,
    task_head_for_architecture,
    task_head_for_model,
)
from albert_tf.convert.tf1_checkpoint import (
    HEAD_PREFIX,
    load_tf1_weights,
    read_tf1_checkpoint,
    resolve_tf1_checkpoint,
    save_tf1_checkpoint,
)
from albert_tf.convert.weight_names import split_model
from albert_tf.disk_space import explain_disk_full, variables_bytes
from albert_tf.errors import MissingInputError, UserError
from albert_tf.export.encoder_bundle import save_encoder_bundle
from albert_tf.export.finetuned_run import run_spm_file, write_task_file
from albert_tf.export.saved_model import load_albert_model
from albert_tf.file_names import (
    ALBERT_CONFIG_FILE,
    ENCODER_FILE,
    FINETUNED_MODEL_FILE,
    PRETRAINER_FILE,
    TASK_FILE,
)
from albert_tf.json_files import read_json_file
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.output_lock import output_lock
from albert_tf.training.checkpointing import find_checkpoint

TF1_CHECKPOINT_NAME = "model.ckpt-0"
_HF_HEAD_KEYS = ("predictions.dense.weight", "sop_classifier.classifier.weight")


def _as_config(config: AlbertConfig | str | None, default_path: str) -> AlbertConfig:
    if isinstance(config, AlbertConfig):
        return config
    if config:  # A file or a preset name.
        return AlbertConfig.from_file_or_preset(config)
    path = default_path
    if not os.path.isfile(path):
        raise MissingInputError(
            f"No ALBERT config: {path} does not exist; pass the albert_config.json (--config)."
        )
    return AlbertConfig.from_json_file(path)


def build_model(config: AlbertConfig, heads: bool) -> keras.Model:
    """An `AlbertPretrainer` (with heads) or `AlbertEncoder` of `config`, float32."""
    encoder = AlbertEncoder(config)
    return AlbertPretrainer(encoder) if heads else encoder


def load_tf1_model(
    path: str, config: AlbertConfig | str | None = None, heads: bool | None = None
) -> keras.Model:
    """A model holding the original checkpoint at `path` (prefix or directory).

    With `heads` None or True, a checkpoint with a task head (`task_heads.py`) loads as that
    task model, one with the pretraining heads as an `AlbertPretrainer`.
    """
    prefix = resolve_tf1_checkpoint(path)
    config = _as_config(config, os.path.join(os.path.dirname(prefix), ALBERT_CONFIG_FILE))
    tensors = read_tf1_checkpoint(prefix)
    model = None
    if heads is not False:
        model = _tf1_task_model(AlbertEncoder(config), tensors)
    if model is None:
        if heads is None:
            heads = any(name.startswith(HEAD_PREFIX) for name in tensors)
        model = build_model(config, heads)
    load_tf1_weights(model, tensors, prefix)
    return model


def _tf1_task_model(encoder: AlbertEncoder, tensors: dict) -> keras.Model | None:
    for head in TASK_HEADS:
        if head.from_tf1 is not None:
            model = head.from_tf1(encoder, tensors)
            if model is not None:
                return model
    return None


def load_hf_model(
    path: str, config: AlbertConfig | str | None = None, heads: bool | None = None
) -> keras.Model:
    """A model holding the Hugging Face ALBERT weights of directory `path`."""
    if isinstance(config, str) and not os.path.isfile(config):
        config = AlbertConfig.from_file_or_preset(config)  # a preset name (or an error)
    if not isinstance(config, AlbertConfig):
        config_path = config or os.path.join(path, CONFIG_NAME)
        if not os.path.isfile(config_path):
            raise MissingInputError(f"{config_path}: no Hugging Face config.json; pass --config.")
        values = read_json_file(config_path, "a Hugging Face config.json or albert_config.json")
        if not isinstance(values, dict):
            raise UserError("not a JSON object of config fields", where=config_path)
        if "model_type" in values or "architectures" in values:
            config = albert_config_from_hf_dict(values, source=config_path)
        else:  # An albert_config.json.
            config = AlbertConfig.from_json_file(config_path)
            values = {}
    else:
        values = {}
    state = read_hf_state_dict(path)
    task_head = None
    if heads is not False:
        for architecture in values.get("architectures") or ():
            task_head = task_head or task_head_for_architecture(architecture)
    if task_head is not None:
        model = task_head.build(AlbertEncoder(config), values)
    else:
        if heads is None:
            heads = all(any(name.endswith(key) for name in state) for key in _HF_HEAD_KEYS)
        model = build_model(config, heads)
    load_hf_weights(model, state, source=path)
    return model


def load_albert_tf_model(
    path: str, heads: bool | None = None, config: AlbertConfig | str | None = None
) -> keras.Model:
    """An albert_tf `.keras` model, or the one in directory `path`.

    In a directory, a fine-tuned `model.keras` comes first, then `pretrainer.keras`, then
    `encoder.keras` (the reverse with `heads=False`). A pretraining run (its workdir or a
    `ckpt-N` prefix) reads as an `AlbertPretrainer` from its last checkpoint, which holds the
    heads its `encoder.keras` lacks (`config`: default, the run's `albert_config.json`).
    """
    if heads is not False and _pretraining_checkpoint(path):
        directory = path if os.path.isdir(path) else os.path.dirname(path)
        return load_albert_model(
            path, _as_config(config, os.path.join(directory, ALBERT_CONFIG_FILE))
        )
    if os.path.isdir(path):
        candidates = [FINETUNED_MODEL_FILE, PRETRAINER_FILE, ENCODER_FILE]
        if heads is False:
            candidates.reverse()
        found = [os.path.join(path, c) for c in candidates if os.path.isfile(os.path.join(path, c))]
        if not found:
            raise MissingInputError(f"{path}: no {', '.join(candidates)}.")
        path = found[0]
    if not path.endswith(".keras") or not os.path.isfile(path):
        raise MissingInputError(f"{path}: not an albert_tf .keras file (or a directory with one).")
    model = keras.saving.load_model(path, compile=False)
    encoder, pretrainer = split_model(model)
    if heads is True and pretrainer is None and task_head_for_model(model) is None:
        raise UserError(f"{path}: an encoder without heads; heads=True needs them.")
    return encoder if heads is False else model


def _pretraining_checkpoint(path: str) -> bool:
    """Whether `path` is a pretraining run's checkpoint (a workdir without a `.keras` model
    with heads, or a `ckpt-N` prefix)."""
    if os.path.isdir(path) and any(
        os.path.isfile(os.path.join(path, name)) for name in (FINETUNED_MODEL_FILE, PRETRAINER_FILE)
    ):
        return False
    return find_checkpoint(path) is not None


def load_model(
    fmt: str, path: str, config: AlbertConfig | str | None = None, heads: bool | None = None
) -> keras.Model:
    """Loads a checkpoint of format `fmt` (see the module docstring) as an albert_tf model."""
    check_format("from", fmt)
    if fmt == "tf1":
        return load_tf1_model(path, config, heads)
    if fmt == "hf":
        return load_hf_model(path, config, heads)
    if fmt == "keras_hub":  # The preset carries its config.
        return load_keras_hub_model(path, heads)
    return load_albert_tf_model(path, heads, config)


def _copy_spm(spm_model_file: str | None, directory: str) -> None:
    if spm_model_file:
        shutil.copyfile(spm_model_file, os.path.join(directory, os.path.basename(spm_model_file)))


def _write_json(path: str, values: dict) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(values, f, indent=2, sort_keys=True)
        f.write("\n")


def write_tf1(model: keras.Model, directory: str, spm_model_file: str | None = None) -> None:
    """Writes the original layout into an existing empty `directory`."""
    encoder, _ = split_model(model)
    config_values = original_config_dict(encoder.config)  # Checks convertibility first.
    save_tf1_checkpoint(model, os.path.join(directory, TF1_CHECKPOINT_NAME), global_step=0)
    with open(os.path.join(directory, "checkpoint"), "w", encoding="utf-8") as f:
        # Relative paths, so the directory can be moved.
        f.write(f'model_checkpoint_path: "{TF1_CHECKPOINT_NAME}"\n')
        f.write(f'all_model_checkpoint_paths: "{TF1_CHECKPOINT_NAME}"\n')
    _write_json(os.path.join(directory, ALBERT_CONFIG_FILE), config_values)
    _copy_spm(spm_model_file, directory)


def write_hf(
    model: keras.Model,
    directory: str,
    spm_model_file: str | None = None,
    do_lower_case: bool = True,
) -> None:
    """Writes a Hugging Face directory into an existing empty `directory`."""
    encoder, pretrainer = split_model(model)
    task_head = task_head_for_model(model)
    if task_head is not None:
        architecture = task_head.hf_architecture
    else:
        architecture = "AlbertForPreTraining" if pretrainer is not None else "AlbertModel"
    values = hf_config_dict(encoder.config, architecture)
    if task_head is not None:
        values = dict(sorted({**values, **task_head.hf_config(model)}.items()))
    _write_json(os.path.join(directory, CONFIG_NAME), values)
    save_hf_weights(model, os.path.join(directory, SAFETENSORS_NAME))
    if spm_model_file:
        write_hf_tokenizer(spm_model_file, directory, do_lower_case)


def write_albert_tf(
    model: keras.Model,
    directory: str,
    spm_model_file: str | None = None,
    do_lower_case: bool = True,
    seq_length: int | None = None,
    bundle: bool = False,
    source_values: dict | None = None,
) -> None:
    """Writes `encoder.keras` (+ `pretrainer.keras` or a task's `model.keras`), the config.

    With `bundle` and a SentencePiece model, the encoder is written as an encoder bundle
    (export/encoder_bundle.py: the model as `spm.model`, `do_lower_case` and `seq_length` in
    `tokenizer_config.json`); else the model keeps its file name. A task model's run files
    (`task.json`, `spm.model`) come from `source_values` (the Hugging Face `config.json`).
    """
    encoder, pretrainer = split_model(model)
    if bundle and spm_model_file:
        save_encoder_bundle(directory, encoder, spm_model_file, do_lower_case, seq_length)
    else:
        encoder.save(os.path.join(directory, ENCODER_FILE))
        encoder.config.to_json_file(os.path.join(directory, ALBERT_CONFIG_FILE))
        _copy_spm(spm_model_file, directory)
    if pretrainer is not None:
        pretrainer.save(os.path.join(directory, PRETRAINER_FILE))
    elif task_head_for_model(model) is not None:
        model.save(os.path.join(directory, FINETUNED_MODEL_FILE))
        write_task_file(
            directory, converted_task_json(model, source_values or {}, do_lower_case, seq_length)
        )
        spm_copy = run_spm_file(directory)
        if spm_model_file and not os.path.isfile(spm_copy):
            shutil.copyfile(spm_model_file, spm_copy)


def converted_task_json(
    model: keras.Model, values: dict, do_lower_case: bool = True, seq_length: int | None = None
) -> dict:
    """The `task.json` of a converted task model (`TaskHead.task_json`), its casing and, when
    given, its sequence length; `values` that are a run's `task.json` are kept as they are."""
    if "family" in values:
        return {**values, **({"max_seq_length": seq_length} if seq_length else {})}
    task = {**task_head_for_model(model).task_json(model, values), "do_lower_case": do_lower_case}
    if seq_length:
        task["max_seq_length"] = seq_length
    return task


def source_config_values(fmt: str, path: str) -> dict:
    """What a source says of its task: the `config.json` of an `hf` directory (labels, problem
    type), the `task.json` of an albert_tf run, else `{}`."""
    name = {"hf": CONFIG_NAME, "albert_tf": TASK_FILE}.get(fmt)
    config_path = os.path.join(path, name) if name and os.path.isdir(path) else ""
    if not os.path.isfile(config_path):
        return {}
    values = read_json_file(config_path, f"a {name}")
    return values if isinstance(values, dict) else {}


def save_model(
    model: keras.Model,
    fmt: str,
    path: str,
    spm_model_file: str | None = None,
    overwrite: bool = False,
    do_lower_case: bool = True,
    seq_length: int | None = None,
    bundle: bool = False,
    source_values: dict | None = None,
) -> str:
    """Writes `model` as a `fmt` directory at `path`, atomically; returns `path`.

    `seq_length`: a keras-hub classifier's preprocessor length, an albert_tf bundle's, a task
    model's fine-tuning length; `bundle`, `source_values`: see `write_albert_tf`.
    """
    check_format("to", fmt)
    needed = lambda: variables_bytes(model.weights)  # noqa: E731
    with (
        output_lock(path),
        explain_disk_full(path, needed),
        atomic_output_directory(path, overwrite) as directory,
    ):
        if fmt == "tf1":
            write_tf1(model, directory, spm_model_file)
        elif fmt == "hf":
            write_hf(model, directory, spm_model_file, do_lower_case)
        elif fmt == "keras_hub":
            write_keras_hub(model, directory, spm_model_file, do_lower_case, seq_length)
        else:
            write_albert_tf(
                model, directory, spm_model_file, do_lower_case, seq_length, bundle, source_values
            )
    return path


def convert_checkpoint(
    from_format: str,
    input_path: str,
    to_format: str,
    output_path: str,
    config: AlbertConfig | str | None = None,
    spm_model_file: str | None = None,
    overwrite: bool = False,
    heads: bool | None = None,
    do_lower_case: bool = True,
    seq_length: int | None = None,
) -> str:
    """Reads `input_path` as `from_format` and writes it as `to_format` at `output_path`.

    Conversions from or to keras-hub take the SentencePiece model and `seq_length` that came
    with the input when not given (`preset_tokenizer`).
    """
    check_format("from", from_format)
    check_format("to", to_format)
    refuse_existing(output_path, overwrite)  # Before the (slow) load.
    if spm_model_file and not os.path.isfile(spm_model_file):
        raise MissingInputError("no such SentencePiece model", where=spm_model_file)
    if "keras_hub" in (from_format, to_format):
        found_spm, found_length = preset_tokenizer(from_format, input_path)
        spm_model_file = spm_model_file or found_spm
        seq_length = seq_length or found_length
    model = load_model(from_format, input_path, config, heads)
    return save_model(
        model,
        to_format,
        output_path,
        spm_model_file,
        overwrite,
        do_lower_case,
        seq_length,
        bundle=from_format == "keras_hub",
        source_values=source_config_values(from_format, input_path),
    )
