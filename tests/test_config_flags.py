"""Flags generated from config dataclasses: one per field, typed, defaulted, documented; the
config read back from them; several dataclasses in one script; the shared checks."""

from __future__ import annotations

import dataclasses

import pytest
from absl import flags

from albert_tf.config_fields import check_range, field_help, option
from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.errors import UserError
from albert_tf.finetune.classification.classification_config import ClassificationConfig
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.multiple_choice.multiple_choice_config import MultipleChoiceConfig
from albert_tf.finetune.span_qa.span_qa_config import SpanQaConfig
from albert_tf.finetune.tagging.tagging_config import TaggingConfig
from albert_tf.training.pretrain_config import PretrainConfig

CONFIGS = [
    ClassificationConfig,
    MultipleChoiceConfig,
    SpanQaConfig,
    TaggingConfig,
    PretrainConfig,
]


@dataclasses.dataclass(frozen=True)
class Runtime:
    """A second dataclass of the same script, as runtime options would be."""

    seed: int = option(1, "Shared with the task config: one flag for both.")
    threads: int = option(0, "Threads (0: all).")
    mode: str = option("fast", "How to run.", choices=("fast", "exact"))


@pytest.mark.parametrize("config_class", CONFIGS, ids=lambda c: c.__name__)
def test_every_field_is_a_documented_flag_with_the_fields_default(config_class):
    values = flags.FlagValues()
    define_flags(config_class, values)
    defaults = {field.name: field.default for field in dataclasses.fields(config_class)}
    assert set(defaults) <= set(values)
    for name, default in defaults.items():
        flag = values[name]
        assert field_help(config_class, name) and flag.help.endswith(field_help(config_class, name))
        steps = ("do_train", "do_eval", "do_predict", "export_saved_model")
        if name in steps and issubclass(config_class, FinetuneConfig):
            assert flag.default is False, name  # Steps run only when asked for.
        elif isinstance(default, tuple):
            assert flag.default == list(default), name
        else:
            assert flag.default == default, name
    args = {"albert_config_file": "a.json", "do_train": True}
    if config_class is PretrainConfig:
        args["input_file"] = "x"
    values(["prog", *(f"--{name}={value}" for name, value in args.items())])
    if config_class is not PretrainConfig:  # The other steps' flags are off unless passed.
        args.update(do_eval=False, do_predict=False, export_saved_model=False)
    assert config_from_flags(config_class, values) == config_class(**args)


def test_enum_list_and_optional_flags():
    values = flags.FlagValues()
    define_flags(SpanQaConfig, values)
    define_flags(TaggingConfig, values)  # Shared names (files, lengths) are defined once.
    values(
        [
            "prog",
            "--labels=O,B-PER",
            "--tag_scheme=bio",
            "--null_score_diff_threshold=-1",
            "--do_eval",
        ]
    )
    assert "enum" in values["tag_scheme"].flag_type() and "enum" in values["optimizer"].flag_type()
    assert config_from_flags(TaggingConfig, values).labels == ("O", "B-PER")
    assert config_from_flags(SpanQaConfig, values).null_score_diff_threshold == -1.0
    with pytest.raises(flags.IllegalFlagValueError):
        values["tag_scheme"].parse("bilou")


def test_a_script_combines_two_configs():
    values = flags.FlagValues()
    define_flags(ClassificationConfig, values)
    define_flags(Runtime, values)
    values(["prog", "--seed=7", "--threads=2", "--mode=exact", "--task=rte", "--do_train"])
    assert config_from_flags(ClassificationConfig, values).seed == 7
    assert config_from_flags(Runtime, values) == Runtime(seed=7, threads=2, mode="exact")


def test_a_field_without_help_is_refused():
    @dataclasses.dataclass(frozen=True)
    class Undocumented:
        steps: int = 3

    with pytest.raises(TypeError, match="Undocumented.steps has no help text"):
        define_flags(Undocumented, flags.FlagValues())


@pytest.mark.parametrize(
    "change, message",
    [
        ({"optimizer": "sgd"}, r"optimizer='sgd' is not supported, --optimizer, choose one of"),
        ({"precision": "fp8"}, r"precision='fp8' is not supported"),
        ({"train_batch_size": 0}, r"train_batch_size must be positive, got 0, --train_batch"),
        ({"max_seq_length": 2}, r"max_seq_length must be >= 3 \(\[CLS\] and \[SEP\]s\), got 2"),
        ({"warmup_proportion": 1.0}, r"warmup_proportion must be in \[0, 1\), got 1.0"),
        ({"bucket_width": -1}, r"bucket_width must be >= 0, got -1"),
    ],
)
def test_configs_share_one_check_per_kind(change, message):
    with pytest.raises(UserError, match=message):
        FinetuneConfig(**change)


def test_range_bounds_read_as_written():
    with pytest.raises(UserError, match=r"p must be in \(0, 1\], got 1.5"):
        check_range("p", 1.5, 0.0, 1.0, low_open=True, high_open=False)
    with pytest.raises(UserError, match=r"x must be <= 3, got 4"):
        check_range("x", 4, high=3, high_open=False)
    check_range("x", 3, high=3, high_open=False)


def test_spellings_users_type_are_kept_canonical():
    assert ClassificationConfig(task="SST2").task == "sst-2"
    assert TaggingConfig(tag_scheme="BIO").tag_scheme == "bio"
    with pytest.raises(UserError, match="task='wnli2' is not supported"):
        ClassificationConfig(task="wnli2")
