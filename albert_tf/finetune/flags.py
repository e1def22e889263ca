"""The absl flags every fine-tuning script shares, with defaults taken from the config class.

A task family's script defines its own data flags, then calls `define_finetune_flags` with its
config class (a `FinetuneConfig` subclass, whose defaults become the flags' defaults, so they
cannot drift), and builds its config with `finetune_config_values(FLAGS)` plus its own fields.

Illustration (not run; a script):
    define_finetune_flags(ClassificationConfig)
    config = ClassificationConfig(task=FLAGS.task,
                                  **finetune_config_values(FLAGS))
"""

from __future__ import annotations

import dataclasses
from typing import Any

from absl import flags

from albert_tf.errors import UserError
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.training.optimizers import OPTIMIZER_NAMES
from albert_tf.training.precision import PRECISIONS
from albert_tf.training.strategy import STRATEGIES

_HELP = {
    "init_checkpoint": (
        "Pretrained encoder: bundle/export dir, encoder.keras, pretraining workdir or ckpt "
        "prefix, Hugging Face directory or original TF1 checkpoint. Empty: random "
        "initialization (needs --albert_config_file)."
    ),
    "albert_config_file": (
        "albert_config.json or a preset name, e.g. albert_base (random init, checkpoints "
        "without config)."
    ),
    "spm_model_file": "SentencePiece model (default: the one shipped with the encoder).",
    "do_lower_case": "Lowercase text (with --spm_model_file).",
    "max_seq_length": "Packed sequence length.",
    "dropout_rate": "Dropout before the task head.",
    "optimizer": "adamw or lamb.",
    "learning_rate": "Peak learning rate.",
    "num_train_epochs": "Epochs (may be fractional).",
    "warmup_proportion": "Fraction of the steps spent in linear warmup.",
    "weight_decay": "Weight decay (not on LayerNorm and bias).",
    "clip_norm": "Global gradient norm clip (0: none).",
    "train_batch_size": "Global training batch size.",
    "eval_batch_size": "Evaluation / prediction batch size.",
    "seed": "Random seed (initial head weights, data order, dropout).",
    "max_train_examples": "Train on the first N examples only (0: all).",
    "do_train": "Fine-tune.",
    "do_eval": "Evaluate on the dev data.",
    "do_predict": "Write predictions for the test data.",
    "export_saved_model": "Export a raw-text SavedModel into output_dir/saved_model.",
    "strategy": "Distribution strategy.",
    "tpu": "TPU name or address (--strategy=tpu).",
    "precision": "Compute precision (auto: what measures fastest on this machine).",
    "jit_compile": "Compile the train step with XLA.",
    "steps_per_execution": "Train steps per tf.function call.",
    "bucket_width": (
        "Group training examples by length and pad each batch only to the next multiple of "
        "this many tokens (a few static shapes; 0: pad every batch to max_seq_length)."
    ),
}
_ENUMS = {"optimizer": OPTIMIZER_NAMES, "strategy": STRATEGIES, "precision": PRECISIONS}
# Off unless asked: a script run without --do_* flags should say "nothing to do".
_FALSE_BY_DEFAULT = ("do_train", "do_eval", "do_predict", "export_saved_model")


def define_finetune_flags(config_class: type[FinetuneConfig] = FinetuneConfig) -> None:
    """Defines `--output_dir`, `--encoder` and a flag per `FinetuneConfig` field."""
    defaults = config_class()
    for field in dataclasses.fields(FinetuneConfig):
        name, default = field.name, getattr(defaults, field.name)
        help_text = _HELP[name]
        if name in _FALSE_BY_DEFAULT:
            flags.DEFINE_bool(name, False, help_text)
        elif name in _ENUMS:
            flags.DEFINE_enum(name, default, list(_ENUMS[name]), help_text)
        elif isinstance(default, bool):
            flags.DEFINE_bool(name, default, help_text)
        elif isinstance(default, int):
            flags.DEFINE_integer(name, default, help_text)
        elif isinstance(default, float):
            flags.DEFINE_float(name, default, help_text)
        else:
            flags.DEFINE_string(name, default, help_text)
    flags.DEFINE_string("encoder", "", "Alias of --init_checkpoint.")
    flags.DEFINE_string("output_dir", None, "Where checkpoints, logs, model and results go.")
    flags.mark_flags_as_required(["output_dir"])


def finetune_config_values(values: flags.FlagValues) -> dict[str, Any]:
    """The `FinetuneConfig` fields the shared flags set, as keyword arguments."""
    if values.encoder and values.init_checkpoint and values.encoder != values.init_checkpoint:
        raise UserError(
            "--encoder and --init_checkpoint differ", where="--encoder", fix="pass one of them"
        )
    kwargs = {field.name: values[field.name].value for field in dataclasses.fields(FinetuneConfig)}
    kwargs["init_checkpoint"] = values.init_checkpoint or values.encoder
    return kwargs
