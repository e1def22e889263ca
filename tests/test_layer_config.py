"""`ArgumentsConfig`: configs read from the constructor's signature, keys as saved before."""

from __future__ import annotations

import keras
import pytest

from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures
from albert_tf.layer_config import ArgumentsConfig, arguments_config, store_arguments
from albert_tf.models.attention import AlbertAttention
from albert_tf.models.embeddings import AlbertEmbeddings
from albert_tf.models.feed_forward import AlbertFeedForward
from albert_tf.models.masked_lm_head import AlbertMaskedLMHead
from albert_tf.models.sentence_order_head import AlbertSentenceOrderHead
from albert_tf.models.transformer_block import AlbertTransformerBlock
from albert_tf.tokenization.input_packer import AlbertInputPacker
from albert_tf.tokenization.text_features import AlbertTextFeatures
from albert_tf.training.schedules import WarmupPolynomialDecay

# The keys `.keras` files of earlier runs hold, after Keras's own (name, trainable, dtype).
SAVED_KEYS = {
    AlbertAttention: [
        "hidden_size",
        "num_attention_heads",
        "attention_probs_dropout_prob",
        "hidden_dropout_prob",
        "initializer_range",
    ],
    AlbertFeedForward: [
        "hidden_size",
        "intermediate_size",
        "hidden_act",
        "hidden_dropout_prob",
        "initializer_range",
    ],
    AlbertEmbeddings: [
        "vocab_size",
        "embedding_size",
        "hidden_size",
        "max_position_embeddings",
        "type_vocab_size",
        "dropout_rate",
        "initializer_range",
        "use_projection",
    ],
    AlbertTransformerBlock: [
        "hidden_size",
        "num_attention_heads",
        "intermediate_size",
        "hidden_act",
        "hidden_dropout_prob",
        "attention_probs_dropout_prob",
        "initializer_range",
        "attention_layer",
        "feed_forward_layer",
    ],
    AlbertMaskedLMHead: ["vocab_size", "embedding_size", "hidden_act", "initializer_range"],
    AlbertSentenceOrderHead: ["num_classes", "initializer_range"],
    AlbertInputPacker: ["seq_length", "cls_id", "sep_id"],
    AlbertTextFeatures: ["tokenizer", "seq_length", "do_lower_case"],
    ChoiceFeatures: [
        "tokenizer",
        "seq_length",
        "max_qa_length",
        "do_lower_case",
        "blank_per_underscore",
    ],
}


def _layers(spm_model: str) -> list[keras.layers.Layer]:
    return [
        AlbertAttention(16, 2),
        AlbertFeedForward(16, 64),
        AlbertEmbeddings(100, 8, 16),
        AlbertTransformerBlock(16, 2, 64),
        AlbertMaskedLMHead(100, 8),
        AlbertSentenceOrderHead(),
        AlbertInputPacker(8),
        AlbertTextFeatures(spm_model, 16),
        ChoiceFeatures(spm_model, 16, 8),
    ]


def test_configs_keep_their_saved_keys_and_round_trip(tiny_model_file):
    for layer in _layers(tiny_model_file):
        config = layer.get_config()
        assert list(config) == ["name", "trainable", "dtype", *SAVED_KEYS[type(layer)]]
        again = type(layer).from_config(config)
        assert again.get_config() == config, type(layer).__name__


class _Scaled(ArgumentsConfig, keras.layers.Layer):
    config_excludes = ("reference",)

    def __init__(self, factor=2.0, inner=None, reference=None, *, bias=None, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
        if isinstance(inner, dict):  # Loading: the sub-layer as get_config serialized it.
            inner = keras.saving.deserialize_keras_object(inner)
        self.inner = inner or keras.layers.Dense(3, name="inner")
        self.reference = reference
        self.bias = 0.0 if bias is None else bias  # The resolved value is saved.


def test_named_arguments_resolved_sub_layers_serialized_excludes_left_out():
    layer = _Scaled(3.0, reference=object(), name="scaled")
    config = layer.get_config()
    assert config["factor"] == 3.0 and config["bias"] == 0.0
    assert "reference" not in config and "kwargs" not in config
    assert config["inner"] == keras.saving.serialize_keras_object(layer.inner)
    assert isinstance(_Scaled.from_config(config).inner, keras.layers.Dense)


def test_an_argument_not_kept_as_an_attribute_fails_loudly():
    class Forgetful(ArgumentsConfig, keras.layers.Layer):
        def __init__(self, size=4, **kwargs):
            super().__init__(**kwargs)

    with pytest.raises(AttributeError, match="size"):
        Forgetful().get_config()


def test_store_arguments_keeps_each_saved_argument_and_arguments_config_reads_them():
    class Block(ArgumentsConfig, keras.layers.Layer):
        config_excludes = ("owner",)

        def __init__(self, width, rate=0.5, owner=None, *, name_of_thing="x", **kwargs):
            super().__init__(**kwargs)
            store_arguments(self, locals())

    block = Block(4, owner=object())
    assert (block.width, block.rate, block.name_of_thing) == (4, 0.5, "x")
    assert not hasattr(block, "owner") and not hasattr(block, "kwargs")
    assert arguments_config(block) == {"width": 4, "rate": 0.5, "name_of_thing": "x"}


def test_a_schedule_config_is_its_arguments_as_saved_before():
    schedule = WarmupPolynomialDecay(1e-3, decay_steps=100, warmup_steps=10, power=0.5)
    assert schedule.get_config() == {
        "initial_learning_rate": 1e-3,
        "decay_steps": 100,
        "warmup_steps": 10,
        "power": 0.5,
        "end_learning_rate": 0.0,
        "start_warmup_step": 0,
        "name": "WarmupPolynomialDecay",
    }
    again = WarmupPolynomialDecay.from_config(schedule.get_config())
    assert float(again(50)) == pytest.approx(float(schedule(50)))
