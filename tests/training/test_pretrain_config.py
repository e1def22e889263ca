"""Tests for albert_tf.training.pretrain_config: invalid settings fail at construction."""

import json

import pytest

from albert_tf.training.pretrain_config import PretrainConfig

VALID = dict(albert_config_file="albert_config.json", input_file="train-*.tfrecord")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"optimizer": "sgd"}, "optimizer='sgd' is not supported"),
        ({"ngram": 0}, "ngram must be >= 1"),
        ({"masked_lm_prob": 0.0}, r"masked_lm_prob must be in \(0, 1\]"),
        ({"masked_lm_prob": 1.5}, r"masked_lm_prob must be in \(0, 1\]"),
        ({"num_warmup_steps": -1}, "num_warmup_steps must be >= 0"),
        ({"train_batch_size": 10, "gradient_accumulation_steps": 4}, "must be divisible"),
        ({"albert_config_file": ""}, "albert_config_file is required"),
        ({"do_eval": True}, "do_eval needs eval_file"),
    ],
)
def test_invalid_settings_are_named(changes, message):
    with pytest.raises(ValueError, match=message):
        PretrainConfig(**{**VALID, **changes})


def test_json_round_trip_keeps_masking_settings():
    config = PretrainConfig(**VALID, dynamic_masking=True, masked_lm_prob=0.3, ngram=2)
    assert PretrainConfig(**json.loads(config.to_json_string())) == config
