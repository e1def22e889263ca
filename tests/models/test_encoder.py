"""Tests for albert_tf.models.encoder: shapes, sharing, counts, masking, saving."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.models.transformer_block import AlbertTransformerBlock

# REFERENCE.md section 1: exact counts from the original graph's variable shapes.
# (encoder + pooler, + MLM and SOP heads, one shared block)
REFERENCE_COUNTS = {
    "albert_base": (11_683_584, 11_813_810, 7_087_872),
    "albert_large": (17_683_968, 17_847_474, 12_596_224),
    "albert_xlarge": (58_724_864, 59_021_490, 50_358_272),
    "albert_xxlarge": (222_595_584, 223_158_450, 201_379_840),
}

# The paper's rounded figures (millions), ALBERT-base shape.
PAPER_SHARING_ABLATION = {  # (E, sharing) -> M
    (768, "all_shared"): 31,
    (768, "shared_attention"): 83,
    (768, "shared_ffn"): 57,
    (768, "not_shared"): 108,
    (128, "all_shared"): 12,
    (128, "shared_attention"): 64,
    (128, "shared_ffn"): 38,
    (128, "not_shared"): 89,
}
PAPER_EMBEDDING_ABLATION = {  # (E, sharing) -> M
    **{(e, "not_shared"): m for e, m in [(64, 87), (128, 89), (256, 93), (768, 108)]},
    **{(e, "all_shared"): m for e, m in [(64, 10), (128, 12), (256, 16), (768, 31)]},
}


def _run(encoder, inputs, **kwargs):
    return {k: v for k, v in encoder(inputs, **kwargs).items()}


def _paper_count(encoder, num_params):
    # The paper's not-shared (BERT) figures match the encoder without the pooler
    # (e.g. BERT-large 333.6M -> 334M; with the pooler it would be 335M), while
    # its shared figures match the encoder with the pooler (E=64 all-shared
    # 9.7M -> 10M; without it 9.1M -> 9M).
    count = num_params(encoder.trainable_variables)
    if encoder.config.sharing == "not_shared":
        count -= num_params(encoder.pooler.trainable_variables)
    return count


# --- parameter counts -------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REFERENCE_COUNTS))
def test_preset_parameter_counts_equal_the_original(name, symbolic_build, num_params):
    with symbolic_build():
        encoder = AlbertEncoder(AlbertConfig.preset(name))
        pretrainer = AlbertPretrainer(encoder)
    encoder_count, with_heads, block = REFERENCE_COUNTS[name]
    assert num_params(encoder.trainable_variables) == encoder_count
    assert num_params(pretrainer.trainable_variables) == with_heads
    assert num_params(encoder.groups[0][0].trainable_variables) == block
    assert len(encoder.trainable_variables) == 7 + 16 + 2  # embeddings, one block, pooler


@pytest.mark.parametrize("name, millions", [("bert_base", 108), ("bert_large", 334)])
def test_bert_presets_match_the_paper(name, millions, symbolic_build, num_params):
    with symbolic_build():
        encoder = AlbertEncoder(AlbertConfig.preset(name))
    assert encoder.embeddings.projection is None
    assert round(_paper_count(encoder, num_params) / 1e6) == millions


@pytest.mark.parametrize(
    "embedding_size, sharing, millions",
    [(*key, m) for key, m in {**PAPER_SHARING_ABLATION, **PAPER_EMBEDDING_ABLATION}.items()],
)
def test_paper_ablation_counts(embedding_size, sharing, millions, symbolic_build, num_params):
    config = AlbertConfig.preset("albert_base", embedding_size=embedding_size, sharing=sharing)
    with symbolic_build():
        encoder = AlbertEncoder(config)
    assert round(_paper_count(encoder, num_params) / 1e6) == millions


# --- sharing ----------------------------------------------------------------


def test_all_shared_variables_do_not_grow_with_depth(tiny_config):
    counts = {
        layers: len(AlbertEncoder(tiny_config(num_hidden_layers=layers)).trainable_variables)
        for layers in (1, 12, 24)
    }
    assert counts[1] == counts[12] == counts[24] == 7 + 16 + 2


def test_one_block_object_is_applied_at_every_layer(tiny_config, encoder_inputs):
    encoder = AlbertEncoder(tiny_config(num_hidden_layers=6))
    blocks = [row[0] for row in encoder.layer_blocks]
    assert len(blocks) == 6 and all(block is blocks[0] for block in blocks)
    assert encoder.groups[0][0] is blocks[0]
    graph_blocks = [layer for layer in encoder.layers if isinstance(layer, AlbertTransformerBlock)]
    assert graph_blocks == [blocks[0]]
    calls = []
    block_call = blocks[0].call
    blocks[0].call = lambda *args, **kwargs: calls.append(1) or block_call(*args, **kwargs)
    encoder(encoder_inputs(seq=4))
    assert len(calls) == 6  # called once per layer


@pytest.mark.parametrize("change", [dict(num_hidden_groups=2), dict(inner_group_num=2)])
def test_groups_or_inner_blocks_double_the_block_variables(tiny_config, num_params, change):
    base = AlbertEncoder(tiny_config(num_hidden_layers=4))
    more = AlbertEncoder(tiny_config(num_hidden_layers=4, **change))
    block = num_params(base.groups[0][0].trainable_variables)
    assert num_params(more.trainable_variables) == num_params(base.trainable_variables) + block
    assert len(more.trainable_variables) == len(base.trainable_variables) + 16


def test_layers_map_to_groups_as_the_original(tiny_config):
    config = tiny_config(num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2)
    encoder = AlbertEncoder(config)
    rows = encoder.layer_blocks
    assert rows[0][0] is rows[1][0] is encoder.groups[0][0]
    assert rows[2][1] is rows[3][1] is encoder.groups[1][1]
    assert encoder.groups[0][0] is not encoder.groups[0][1]
    assert encoder.groups[0][0] is not encoder.groups[1][0]
    assert encoder.groups[1][1].name == "group_1_inner_group_1"


@pytest.mark.parametrize(
    "sharing, shared, separate",
    [("shared_attention", "attention", "ffn"), ("shared_ffn", "ffn", "attention")],
)
def test_partial_sharing_shares_one_sub_layer(tiny_config, num_params, sharing, shared, separate):
    encoder = AlbertEncoder(tiny_config(num_hidden_layers=3, sharing=sharing))
    rows = encoder.layer_blocks
    assert getattr(rows[0][0], shared) is getattr(rows[1][0], shared) is getattr(rows[2][0], shared)
    assert len({id(getattr(row[0], separate)) for row in rows}) == 3
    all_shared = AlbertEncoder(tiny_config(num_hidden_layers=3))
    sub_layer = num_params(getattr(all_shared.groups[0][0], separate).trainable_variables)
    assert num_params(encoder.trainable_variables) == (
        num_params(all_shared.trainable_variables) + 2 * sub_layer
    )


def test_not_shared_has_one_block_per_layer(tiny_config, num_params):
    encoder = AlbertEncoder(tiny_config(num_hidden_layers=3, sharing="not_shared"))
    shared = AlbertEncoder(tiny_config(num_hidden_layers=3))
    assert len({id(row[0]) for row in encoder.layer_blocks}) == 3
    block = num_params(shared.groups[0][0].trainable_variables)
    expected = num_params(shared.trainable_variables) + 2 * block
    assert num_params(encoder.trainable_variables) == expected


# --- outputs ----------------------------------------------------------------


def test_outputs_and_all_layers(tiny_config, encoder_inputs):
    config = tiny_config(num_hidden_layers=3, inner_group_num=2)
    encoder = AlbertEncoder(config, output_all_layers=True)
    out = encoder(encoder_inputs(batch=2, seq=12))
    assert tuple(out["sequence_output"].shape) == (2, 12, 32)
    assert tuple(out["pooled_output"].shape) == (2, 32)
    assert len(out["encoder_outputs"]) == 3 * 2
    np.testing.assert_array_equal(out["encoder_outputs"][-1], out["sequence_output"])
    assert not np.allclose(out["encoder_outputs"][0], out["encoder_outputs"][1])
    first_token = np.asarray(out["sequence_output"])[:, 0]
    expected = np.tanh(first_token @ encoder.pooler.kernel.numpy() + encoder.pooler.bias.numpy())
    np.testing.assert_allclose(out["pooled_output"], expected, atol=1e-5)
    assert "encoder_outputs" not in AlbertEncoder(config)(encoder_inputs())


def test_padding_tokens_do_not_change_real_positions(tiny_config, encoder_inputs):
    encoder = AlbertEncoder(tiny_config())
    inputs = encoder_inputs(batch=2, seq=12, real=7)
    changed = {k: v.copy() for k, v in inputs.items()}
    changed["input_word_ids"][:, 7:] = (changed["input_word_ids"][:, 7:] + 13) % 97
    changed["input_type_ids"][:, 7:] = 1 - changed["input_type_ids"][:, 7:]
    before, after = encoder(inputs), encoder(changed)
    np.testing.assert_allclose(
        before["sequence_output"][:, :7], after["sequence_output"][:, :7], atol=1e-5
    )
    np.testing.assert_allclose(before["pooled_output"], after["pooled_output"], atol=1e-5)
    # Without the mask the padding would leak into real positions.
    unmasked = {**inputs, "input_mask": np.ones_like(inputs["input_mask"])}
    unmasked_changed = {**changed, "input_mask": unmasked["input_mask"]}
    leak = np.abs(
        np.asarray(encoder(unmasked)["sequence_output"][:, :7])
        - np.asarray(encoder(unmasked_changed)["sequence_output"][:, :7])
    )
    assert leak.max() > 1e-3


def test_int64_inputs_are_accepted(tiny_config, encoder_inputs):
    encoder = AlbertEncoder(tiny_config())
    inputs = encoder_inputs()
    as_int64 = {k: v.astype("int64") for k, v in inputs.items()}
    np.testing.assert_allclose(
        encoder(inputs)["pooled_output"], encoder(as_int64)["pooled_output"], atol=1e-6
    )


def test_dropout_is_active_only_in_training(tiny_config, encoder_inputs):
    encoder = AlbertEncoder(tiny_config(hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1))
    inputs = encoder_inputs()
    inference = [encoder(inputs)["sequence_output"] for _ in range(2)]
    np.testing.assert_array_equal(*inference)
    training = encoder(inputs, training=True)["sequence_output"]
    assert np.abs(np.asarray(training) - np.asarray(inference[0])).max() > 1e-3


# --- serialization ----------------------------------------------------------


def test_config_round_trip(tiny_config):
    config = tiny_config(num_hidden_groups=3, sharing="shared_ffn", hidden_act="relu")
    encoder = AlbertEncoder(config.to_dict(), output_all_layers=True, name="enc")
    assert encoder.config == config
    clone = AlbertEncoder.from_config(encoder.get_config())
    assert clone.get_config() == encoder.get_config()
    assert clone.config == config and clone.output_all_layers and clone.name == "enc"


def test_rejects_a_non_config():
    with pytest.raises(TypeError, match="AlbertConfig or dict"):
        AlbertEncoder("albert_base")


@pytest.mark.parametrize("sharing, groups", [("all_shared", 3), ("shared_attention", 1)])
def test_keras_file_round_trip(tiny_config, encoder_inputs, tmp_path, sharing, groups):
    config = tiny_config(sharing=sharing, num_hidden_groups=groups)
    encoder = AlbertEncoder(config, output_all_layers=True)
    inputs = encoder_inputs()
    expected = encoder(inputs)
    path = tmp_path / "encoder.keras"
    encoder.save(path)
    restored = keras.saving.load_model(path)
    assert isinstance(restored, AlbertEncoder)
    assert len(restored.trainable_variables) == len(encoder.trainable_variables)
    got = restored(inputs)
    np.testing.assert_array_equal(got["sequence_output"], expected["sequence_output"])
    np.testing.assert_array_equal(got["pooled_output"], expected["pooled_output"])
    rows = restored.layer_blocks
    assert (rows[0][0].attention is rows[1][0].attention) == (groups == 1)


# --- dtype policy -------------------------------------------------------------


def _policies_of(encoder: AlbertEncoder) -> dict[str, str]:
    """Policy name of the model and of every sub-layer (the int32 Inputs excepted)."""
    # Every layer the encoder tracks, however deep (what its checkpoints hold).
    layers = [encoder, *tf.train.TrackableView(encoder).descendants()]
    layers = [layer for layer in layers if isinstance(layer, keras.layers.Layer)]
    return {
        layer.path or layer.name: layer.dtype_policy.name
        for layer in layers
        if not isinstance(layer, keras.layers.InputLayer)
    }


@pytest.mark.parametrize("policy", ["mixed_bfloat16", "float32"])
def test_dtype_argument_sets_the_model_and_every_sub_layer(
    tiny_config, encoder_inputs, tmp_path, restore_policy, policy
):
    # A different global policy must not leak into an encoder given an explicit dtype.
    keras.config.set_dtype_policy("mixed_float16" if policy == "float32" else "float32")
    encoder = AlbertEncoder(tiny_config(num_hidden_layers=2), dtype=policy)
    policies = _policies_of(encoder)
    assert len(policies) > 20  # embeddings, blocks, their Dense/LayerNorm/Dropout, pooler
    assert set(policies.values()) == {policy}, policies
    assert encoder.get_config()["dtype"]["config"]["name"] == policy

    inputs = encoder_inputs()
    expected = encoder(inputs)["sequence_output"]
    path = tmp_path / "encoder.keras"
    encoder.save(path)
    keras.config.set_dtype_policy("float32")
    restored = keras.saving.load_model(path)
    assert set(_policies_of(restored).values()) == {policy}
    got = restored(inputs)["sequence_output"]
    assert keras.backend.standardize_dtype(got.dtype) == encoder.compute_dtype
    np.testing.assert_array_equal(np.asarray(got, "float32"), np.asarray(expected, "float32"))


def test_dtype_none_uses_the_global_policy(tiny_config, restore_policy):
    keras.config.set_dtype_policy("mixed_bfloat16")
    encoder = AlbertEncoder(tiny_config(num_hidden_layers=1))
    assert set(_policies_of(encoder).values()) == {"mixed_bfloat16"}


def test_pooled_output_equals_call(tiny_config, encoder_inputs):
    config = tiny_config(num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2)
    encoder = AlbertEncoder(config)
    inputs = encoder_inputs(real=7)
    np.testing.assert_allclose(
        encoder.pooled_output(inputs), encoder(inputs)["pooled_output"], atol=1e-6
    )
