"""Original TF1 checkpoint names: exact names/shapes, lossless round trips, clear errors."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.convert.checkpoint_mismatch import CheckpointMismatchError
from albert_tf.convert.convert import build_model
from albert_tf.convert.tf1_checkpoint import (
    load_tf1_checkpoint,
    read_tf1_checkpoint,
    save_tf1_checkpoint,
    tf1_tensors,
)

H, E, FFN, V, P = 768, 128, 3072, 30000, 512
# REFERENCE.md section 1, "Original checkpoint variable names (albert_base shapes)".
ALBERT_BASE_BACKBONE = {
    "bert/embeddings/word_embeddings": [V, E],
    "bert/embeddings/token_type_embeddings": [2, E],
    "bert/embeddings/position_embeddings": [P, E],
    "bert/embeddings/LayerNorm/beta": [E],
    "bert/embeddings/LayerNorm/gamma": [E],
    "bert/encoder/embedding_hidden_mapping_in/kernel": [E, H],
    "bert/encoder/embedding_hidden_mapping_in/bias": [H],
    **{
        f"bert/encoder/transformer/group_0/inner_group_0/attention_1/self/{n}/{k}": s
        for n in ("query", "key", "value")
        for k, s in (("kernel", [H, H]), ("bias", [H]))
    },
    "bert/encoder/transformer/group_0/inner_group_0/attention_1/output/dense/kernel": [H, H],
    "bert/encoder/transformer/group_0/inner_group_0/attention_1/output/dense/bias": [H],
    "bert/encoder/transformer/group_0/inner_group_0/LayerNorm/beta": [H],
    "bert/encoder/transformer/group_0/inner_group_0/LayerNorm/gamma": [H],
    "bert/encoder/transformer/group_0/inner_group_0/ffn_1/intermediate/dense/kernel": [H, FFN],
    "bert/encoder/transformer/group_0/inner_group_0/ffn_1/intermediate/dense/bias": [FFN],
    "bert/encoder/transformer/group_0/inner_group_0/ffn_1/intermediate/output/dense/kernel": [
        FFN,
        H,
    ],
    "bert/encoder/transformer/group_0/inner_group_0/ffn_1/intermediate/output/dense/bias": [H],
    "bert/encoder/transformer/group_0/inner_group_0/LayerNorm_1/beta": [H],
    "bert/encoder/transformer/group_0/inner_group_0/LayerNorm_1/gamma": [H],
    "bert/pooler/dense/kernel": [H, H],
    "bert/pooler/dense/bias": [H],
}
ALBERT_BASE_HEADS = {
    "cls/predictions/transform/dense/kernel": [H, E],
    "cls/predictions/transform/dense/bias": [E],
    "cls/predictions/transform/LayerNorm/beta": [E],
    "cls/predictions/transform/LayerNorm/gamma": [E],
    "cls/predictions/output_bias": [V],
    "cls/seq_relationship/output_weights": [2, H],
    "cls/seq_relationship/output_bias": [2],
}
BLOCK_SUFFIXES = sorted(
    {name.split("inner_group_0/")[1] for name in ALBERT_BASE_BACKBONE if "inner_group_0" in name}
)


def variable_shapes(prefix: str) -> dict[str, list[int]]:
    return dict(tf.train.load_checkpoint(prefix).get_variable_to_shape_map())


def tiny_config(**overrides) -> AlbertConfig:
    values = dict(
        vocab_size=60, embedding_size=8, hidden_size=16, num_hidden_layers=4,
        num_attention_heads=2, intermediate_size=24, max_position_embeddings=32,
    )  # fmt: skip
    return AlbertConfig(**{**values, **overrides})


def randomize(model, seed: int = 0):
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        variable.assign(rng.normal(size=variable.shape).astype("float32"))
    return model


def expected_tiny_names(config: AlbertConfig, heads: bool) -> set[str]:
    """The original names for a config, written from the original's naming rules."""
    names = {n for n in ALBERT_BASE_BACKBONE if "transformer/" not in n}
    if config.embedding_size == config.hidden_size:
        names = {n for n in names if "embedding_hidden_mapping_in" not in n}
    names |= {
        f"bert/encoder/transformer/group_{g}/inner_group_{j}/{suffix}"
        for g in range(config.num_hidden_groups)
        for j in range(config.inner_group_num)
        for suffix in BLOCK_SUFFIXES
    }
    return names | (set(ALBERT_BASE_HEADS) if heads else set())


def test_albert_base_names_and_shapes_are_the_originals(tmp_path):
    model = build_model(AlbertConfig.preset("albert_base"), heads=True)
    prefix = save_tf1_checkpoint(model, str(tmp_path / "model.ckpt-0"), global_step=7)
    expected = {**ALBERT_BASE_BACKBONE, **ALBERT_BASE_HEADS, "global_step": []}
    assert variable_shapes(prefix) == expected
    assert tf.train.load_checkpoint(prefix).get_tensor("global_step") == 7
    encoder_prefix = save_tf1_checkpoint(model.encoder, str(tmp_path / "encoder.ckpt"))
    assert variable_shapes(encoder_prefix) == ALBERT_BASE_BACKBONE


@pytest.mark.parametrize(
    "overrides, heads",
    [
        (dict(num_hidden_groups=2, inner_group_num=2), True),
        (dict(num_hidden_groups=2, inner_group_num=2), False),
        (dict(embedding_size=16), True),  # E == H: no embedding_hidden_mapping_in.
        (dict(num_hidden_layers=3, inner_group_num=3), False),
    ],
)
def test_round_trip_gives_identical_weights(tmp_path, overrides, heads):
    config = tiny_config(**overrides)
    model = randomize(build_model(config, heads))
    prefix = save_tf1_checkpoint(model, str(tmp_path / "model.ckpt-1"))
    assert set(variable_shapes(prefix)) == expected_tiny_names(config, heads)
    reloaded = build_model(config, heads)
    load_tf1_checkpoint(reloaded, prefix)
    for original, loaded in zip(model.weights, reloaded.weights, strict=True):
        np.testing.assert_array_equal(np.asarray(original), np.asarray(loaded))
    # Same outputs too (tied MLM output included).
    ids = np.array([[2, 7, 9, 3, 11, 3, 0, 0]])
    features = {
        "input_ids": ids,
        "input_mask": (ids > 0).astype("int32"),
        "segment_ids": np.array([[0, 0, 0, 0, 1, 1, 0, 0]]),
        "masked_lm_positions": np.array([[1, 4]]),
    }
    if heads:
        np.testing.assert_array_equal(
            model(features)["mlm_logits"], reloaded(features)["mlm_logits"]
        )


def write_raw_checkpoint(prefix: str, tensors: dict[str, np.ndarray]) -> str:
    names = sorted(tensors)
    tf.raw_ops.SaveV2(
        prefix=prefix,
        tensor_names=names,
        shape_and_slices=[""] * len(names),
        tensors=[tf.constant(tensors[n]) for n in names],
    )
    return prefix


@pytest.fixture(scope="module")
def tiny_pretrainer_tensors():
    return tf1_tensors(randomize(build_model(tiny_config(num_hidden_groups=2), heads=True), 3))


def test_optimizer_slots_and_global_step_are_ignored(tmp_path, tiny_pretrainer_tensors):
    tensors = dict(tiny_pretrainer_tensors)
    for name, value in tiny_pretrainer_tensors.items():
        tensors[f"{name}/adam_m"] = np.zeros_like(value)
        tensors[f"{name}/adam_v"] = np.ones_like(value)
    tensors["global_step"] = np.asarray(125000, "int64")
    prefix = write_raw_checkpoint(str(tmp_path / "model.ckpt-125000"), tensors)
    assert sorted(read_tf1_checkpoint(prefix)) == sorted(tiny_pretrainer_tensors)
    model = build_model(tiny_config(num_hidden_groups=2), heads=True)
    load_tf1_checkpoint(model, str(tmp_path))  # A directory with one checkpoint, no state file.
    np.testing.assert_array_equal(
        np.asarray(model.sentence_order_head.output_weights),
        tiny_pretrainer_tensors["cls/seq_relationship/output_weights"],
    )


def test_encoder_skips_the_heads_of_a_pretraining_checkpoint(tmp_path, tiny_pretrainer_tensors):
    prefix = write_raw_checkpoint(str(tmp_path / "ckpt"), tiny_pretrainer_tensors)
    encoder = build_model(tiny_config(num_hidden_groups=2), heads=False)
    load_tf1_checkpoint(encoder, prefix)
    np.testing.assert_array_equal(
        np.asarray(encoder.pooler.kernel), tiny_pretrainer_tensors["bert/pooler/dense/kernel"]
    )


def test_pretrainer_from_encoder_checkpoint_says_heads_are_missing(
    tmp_path, tiny_pretrainer_tensors
):
    backbone = {n: t for n, t in tiny_pretrainer_tensors.items() if not n.startswith("cls/")}
    prefix = write_raw_checkpoint(str(tmp_path / "ckpt"), backbone)
    model = build_model(tiny_config(num_hidden_groups=2), heads=True)
    with pytest.raises(CheckpointMismatchError, match="7 missing(?s:.*)no pretraining heads"):
        load_tf1_checkpoint(model, prefix)


@pytest.mark.parametrize(
    "change, expected_message",
    [
        ("missing", r"1 missing, 0 unexpected, 0 with a wrong shape(?s:.*)bert/pooler/dense/bias"),
        ("unexpected", r"0 missing, 1 unexpected(?s:.*)bert/encoder/transformer/group_5/extra"),
        (
            "shape",
            r"1 with a wrong shape(?s:.*)"
            r"cls/predictions/output_bias: model \[60\], checkpoint \[61\]",
        ),
    ],
)
def test_mismatches_are_listed_and_nothing_is_loaded(
    tmp_path, tiny_pretrainer_tensors, change, expected_message
):
    tensors = dict(tiny_pretrainer_tensors)
    if change == "missing":
        del tensors["bert/pooler/dense/bias"]
    elif change == "unexpected":
        tensors["bert/encoder/transformer/group_5/extra"] = np.zeros(2, "float32")
    else:
        tensors["cls/predictions/output_bias"] = np.zeros(61, "float32")
    prefix = write_raw_checkpoint(str(tmp_path / "ckpt"), tensors)
    model = build_model(tiny_config(num_hidden_groups=2), heads=True)
    before = model.get_weights()
    with pytest.raises(CheckpointMismatchError, match=expected_message):
        load_tf1_checkpoint(model, prefix)
    for old, new in zip(before, model.get_weights(), strict=True):
        np.testing.assert_array_equal(old, new)


def test_other_sharing_modes_have_no_original_counterpart(tmp_path):
    model = build_model(tiny_config(sharing="shared_attention"), heads=False)
    with pytest.raises(ValueError, match="sharing='shared_attention' has no counterpart"):
        save_tf1_checkpoint(model, str(tmp_path / "ckpt"))
    assert list(tmp_path.iterdir()) == []


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"model.ckpt-9.index does not exist"):
        read_tf1_checkpoint(str(tmp_path / "model.ckpt-9"))
    with pytest.raises(FileNotFoundError, match="expected one TF1 checkpoint"):
        read_tf1_checkpoint(str(tmp_path))
