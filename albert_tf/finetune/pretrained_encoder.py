"""`load_pretrained_encoder`: the encoder a fine-tuning run starts from.

`load_finetuning_encoder(config, precision)` is what the driver calls: the encoder of
`--init_checkpoint` (or a fresh one of `--albert_config_file`) with its tokenizer file and
casing resolved, checked against the tokenizer's vocabulary and `--max_seq_length`.

Sources, by what `init` points at:

* None: a fresh, randomly initialized encoder of `albert_config` (a baseline).
* an encoder bundle directory, or an export directory holding one in `keras/`
  (`albert_tf.export.encoder_bundle`): the encoder, its config and its SentencePiece model.
* a `.keras` file of an `AlbertEncoder`/`AlbertPretrainer` (the pretraining workdir's
  `encoder.keras`), or a pretraining checkpoint (workdir or `ckpt-N` prefix, with
  `albert_config`, or the `albert_config.json` found next to it).
* a Hugging Face ALBERT directory (`config.json` + safetensors/bin) or an original TF1
  checkpoint (`model.ckpt-*` with `bert/...` variables, prefix or directory): converted on
  the fly with `albert_tf.convert.convert.load_model`; a `*.model` file beside it (e.g.
  `30k-clean.model`, `spiece.model`) is taken as the tokenizer.

The encoder is rebuilt with the requested dtype policy and the loaded weights copied in, so
`mixed_bfloat16` fine-tuning works from a float32 checkpoint.

Illustration (not run):
    pretrained = load_pretrained_encoder("/tmp/runs/pretrain/encoder.keras",
                                         dtype="mixed_bfloat16")
    pretrained.encoder.config.hidden_size
    768
"""

from __future__ import annotations

import dataclasses
import glob
import json
import logging
import os

import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.convert.convert import load_model as load_converted_model
from albert_tf.errors import MissingInputError, UserError
from albert_tf.export.encoder_bundle import find_bundle_dir, load_encoder, read_tokenizer_config
from albert_tf.export.saved_model import load_albert_model
from albert_tf.file_names import ALBERT_CONFIG_FILE, ENCODER_FILE, SPM_FILE
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.tokenization.tokenizer import AlbertTokenizer


@dataclasses.dataclass
class PretrainedEncoder:
    """An encoder and what came with it.

    Attributes:
        encoder: the `AlbertEncoder` (under the requested dtype policy).
        spm_model_file: the SentencePiece model shipped with it (bundles), else None.
        do_lower_case: the casing shipped with it (bundles), else None.
        source: where the weights came from ("random" for a fresh encoder).
    """

    encoder: AlbertEncoder
    spm_model_file: str | None = None
    do_lower_case: bool | None = None
    source: str = "random"


def load_pretrained_encoder(
    init: str | None,
    albert_config: AlbertConfig | str | None = None,
    dtype: str | None = None,
) -> PretrainedEncoder:
    """Loads (or creates) the encoder to fine-tune; see the module docstring for `init`.

    Raises:
        ValueError: no config for a fresh encoder or a checkpoint; a config that differs from
            the checkpoint's.
        FileNotFoundError: nothing at `init`.
    """
    if isinstance(albert_config, str):
        albert_config = AlbertConfig.from_file_or_preset(albert_config)
    if not init:
        if albert_config is None:
            raise UserError(
                "No --init_checkpoint/--encoder: pass --albert_config_file to fine-tune a "
                "randomly initialized encoder."
            )
        return PretrainedEncoder(AlbertEncoder(albert_config, dtype=dtype))
    init = os.fspath(init)
    if not os.path.exists(init) and not os.path.exists(init + ".index"):
        raise MissingInputError(
            f"{init}: not found. Pass an encoder bundle directory, an encoder.keras file, or a "
            "pretraining workdir / ckpt-N prefix."
        )
    bundle_dir = find_bundle_dir(init)
    if bundle_dir is not None:
        encoder, _ = load_encoder(bundle_dir)
        _check_config(init, encoder.config, albert_config)
        tokenizer_config = read_tokenizer_config(bundle_dir)
        return PretrainedEncoder(
            _with_dtype(encoder, dtype),
            spm_model_file=os.path.join(bundle_dir, SPM_FILE),
            do_lower_case=tokenizer_config.get("do_lower_case"),
            source=bundle_dir,
        )
    converted_format = _foreign_format(init)
    if converted_format is not None:
        model = load_converted_model(converted_format, init, albert_config, heads=False)
        logging.info("Fine-tuning from the %s checkpoint %s.", converted_format, init)
        return PretrainedEncoder(
            _with_dtype(model, dtype), spm_model_file=spm_beside(init), source=init
        )
    final_encoder = os.path.join(init, ENCODER_FILE)
    if os.path.isdir(init) and os.path.isfile(final_encoder):
        init = final_encoder  # A pretraining workdir: its final encoder.
    if albert_config is None and not init.endswith(".keras"):
        albert_config = _config_next_to(init)
    model = load_albert_model(init, albert_config)
    encoder = model.encoder if isinstance(model, AlbertPretrainer) else model
    logging.info("Fine-tuning from %s.", init)
    return PretrainedEncoder(_with_dtype(encoder, dtype), source=init)


def load_finetuning_encoder(config: FinetuneConfig, precision: str) -> PretrainedEncoder:
    """The encoder to fine-tune, with the tokenizer file and casing resolved and checked.

    Call it inside `strategy.scope()`. The tokenizer is `--spm_model_file` when given (with
    `--do_lower_case`), else the one shipped with the encoder (bundles, converted checkpoints).

    Raises:
        UserError: no tokenizer, or one whose vocabulary or the sequence length does not fit
            the encoder.
    """
    pretrained = load_pretrained_encoder(
        config.init_checkpoint or None, config.albert_config_file or None, dtype=precision
    )
    spm_model_file = config.spm_model_file or pretrained.spm_model_file
    if not spm_model_file:
        raise UserError(
            "no tokenizer",
            where="--spm_model_file",
            fix="pass the SentencePiece model the encoder was pretrained with, or an encoder "
            "bundle that carries one (--init_checkpoint)",
        )
    use_bundled_casing = pretrained.do_lower_case is not None and not config.spm_model_file
    do_lower_case = pretrained.do_lower_case if use_bundled_casing else config.do_lower_case
    vocab_size = AlbertTokenizer(spm_model_file).vocab_size
    check_compatible(pretrained.encoder.config, vocab_size, config, spm_model_file)
    return dataclasses.replace(
        pretrained, spm_model_file=spm_model_file, do_lower_case=do_lower_case
    )


def check_compatible(
    albert_config: AlbertConfig, vocab_size: int, config: FinetuneConfig, spm_model_file: str
) -> None:
    """The tokenizer's vocabulary and the sequence length must fit the encoder."""
    if vocab_size != albert_config.vocab_size:
        raise UserError(
            f"the SentencePiece model has {vocab_size} pieces but the encoder "
            f"({config.init_checkpoint or config.albert_config_file}) has vocab_size "
            f"{albert_config.vocab_size}",
            where=spm_model_file,
            fix="use the tokenizer the encoder was pretrained with",
        )
    if config.max_seq_length > albert_config.max_position_embeddings:
        raise UserError(
            f"max_seq_length {config.max_seq_length} exceeds the encoder's "
            f"max_position_embeddings {albert_config.max_position_embeddings}",
            where="--max_seq_length",
            fix=f"use at most {albert_config.max_position_embeddings}",
        )


def _foreign_format(path: str) -> str | None:
    """ "hf" or "tf1" for checkpoints of those formats, None for albert_tf ones."""
    if os.path.isdir(path):
        hf_config = os.path.join(path, "config.json")
        if os.path.isfile(hf_config):
            with open(hf_config, encoding="utf-8") as handle:
                values = json.load(handle)
            if "model_type" in values or "architectures" in values:
                return "hf"
    prefix = tf.train.latest_checkpoint(path) if os.path.isdir(path) else path
    if prefix is None and os.path.isdir(path):
        indexes = glob.glob(os.path.join(path, "model.ckpt*.index"))
        prefix = indexes[0][: -len(".index")] if len(indexes) == 1 else None
    if prefix and os.path.isfile(prefix + ".index"):
        names = [name for name, _ in tf.train.list_variables(prefix)]
        if any(name.startswith("bert/") for name in names):
            return "tf1"
    return None


def spm_beside(path: str) -> str | None:
    """The one SentencePiece `*.model` file in `path`'s directory, else None."""
    directory = path if os.path.isdir(path) else os.path.dirname(path)
    models = sorted(glob.glob(os.path.join(directory, "*.model")))
    return models[0] if len(models) == 1 else None


def _config_next_to(path: str) -> AlbertConfig:
    directory = path if os.path.isdir(path) else os.path.dirname(path)
    config_file = os.path.join(directory, ALBERT_CONFIG_FILE)
    if os.path.isfile(config_file):
        return AlbertConfig.from_json_file(config_file)
    raise UserError(
        f"{path}: a checkpoint needs its AlbertConfig; none found ({config_file}). Pass "
        "--albert_config_file."
    )


def _check_config(source: str, actual: AlbertConfig, expected: AlbertConfig | None) -> None:
    if expected is not None and actual != expected:
        raise UserError(
            f"{source}: its AlbertConfig differs from --albert_config_file; leave the flag out "
            "(the bundle carries its own config) or pass the matching one."
        )


def _with_dtype(encoder: AlbertEncoder, dtype: str | None) -> AlbertEncoder:
    """A copy of `encoder` under the `dtype` policy (the same object when nothing changes)."""
    # The layers hold the policy (a functional model reports float32 whatever it was built with).
    if dtype is None or encoder.embeddings.dtype_policy.name == dtype:
        return encoder
    rebuilt = AlbertEncoder(encoder.config, dtype=dtype)
    rebuilt.set_weights(encoder.get_weights())
    return rebuilt
