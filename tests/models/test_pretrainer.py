"""Tests for albert_tf.models.pretrainer: fit, mixed precision, XLA, saving, metrics."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.models.pretraining_loss import pretraining_loss_and_metrics

METRICS = ("masked_lm_accuracy", "masked_lm_loss", "sentence_order_accuracy", "sentence_order_loss")


@pytest.fixture
def model(tiny_config):
    return AlbertPretrainer(AlbertEncoder(tiny_config(num_hidden_layers=2)))


def _dataset(features, batch):
    return tf.data.Dataset.from_tensor_slices(features).batch(batch, drop_remainder=True)


def _dtype(x):
    return keras.backend.standardize_dtype(x.dtype)


@pytest.mark.parametrize(
    "overrides",
    [{}, {"inner_group_num": 2, "num_hidden_groups": 2}, {"sharing": "not_shared"}],
)
def test_last_layer_at_masked_positions_equals_the_full_encoder(
    tiny_config, pretraining_features, overrides
):
    model = AlbertPretrainer(AlbertEncoder(tiny_config(num_hidden_layers=2, **overrides)))
    features = pretraining_features(batch=3, predictions=5)
    full = model.encoder(
        {
            "input_word_ids": features["input_ids"],
            "input_mask": features["input_mask"],
            "input_type_ids": features["segment_ids"],
        }
    )
    out = model(features)
    expected_mlm = model.masked_lm_head(full["sequence_output"], features["masked_lm_positions"])
    np.testing.assert_allclose(out["mlm_logits"], expected_mlm, atol=1e-4)
    expected_sop = model.sentence_order_head(full["pooled_output"])
    np.testing.assert_allclose(out["sop_logits"], expected_sop, atol=1e-5)


def test_outputs_and_tied_embeddings(model, pretraining_features, num_params):
    out = model(pretraining_features(batch=3, predictions=5))
    assert tuple(out["mlm_logits"].shape) == (3, 5, 97)
    assert tuple(out["sop_logits"].shape) == (3, 2)
    word = model.encoder.embeddings.word_embeddings.embeddings
    assert model.masked_lm_head.token_embedding.embeddings is word
    heads = model.masked_lm_head.trainable_variables + model.sentence_order_head.trainable_variables
    head_only = [v for v in heads if v is not word]
    assert num_params(model.trainable_variables) == num_params(
        model.encoder.trainable_variables
    ) + num_params(head_only)


def test_int32_features_and_flat_labels_give_the_same_loss(model, pretraining_features):
    features = pretraining_features()
    other = {k: v.astype("int32") if v.dtype == np.int64 else v for k, v in features.items()}
    other["next_sentence_labels"] = other["next_sentence_labels"].reshape(-1)
    loss = model.compute_loss(x=features, y_pred=model(features))
    np.testing.assert_allclose(loss, model.compute_loss(x=other, y_pred=model(other)), rtol=1e-6)
    expected, _ = pretraining_loss_and_metrics(features, model(features))
    np.testing.assert_allclose(loss, expected, rtol=1e-6)


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
@pytest.mark.parametrize("policy", ["float32", "mixed_bfloat16", "mixed_float16"])
def test_fit_step_under_dtype_policy(tiny_config, pretraining_features, restore_policy, policy):
    keras.config.set_dtype_policy(policy)
    model = AlbertPretrainer(AlbertEncoder(tiny_config(num_hidden_layers=2)))
    # Eager keeps this test fast; graph/XLA compilation is test_fit_with_jit_compile.
    model.compile(optimizer=keras.optimizers.Adam(1e-3), run_eagerly=True)
    features = pretraining_features(batch=4)
    before = model.encoder.groups[0][0].ffn.intermediate.kernel.numpy().copy()

    history = model.fit(_dataset(features, 4), epochs=1, verbose=0, shuffle=False).history

    assert np.isfinite(history["loss"][0])
    assert set(METRICS) <= set(history)
    assert not np.allclose(before, model.encoder.groups[0][0].ffn.intermediate.kernel.numpy())
    out = model(features)
    assert _dtype(out["mlm_logits"]) == _dtype(out["sop_logits"]) == "float32"
    encoder_inputs = {
        "input_word_ids": features["input_ids"],
        "input_mask": features["input_mask"],
        "input_type_ids": features["segment_ids"],
    }
    expected_compute = {"float32": "float32"}.get(policy, policy.removeprefix("mixed_"))
    assert _dtype(model.encoder(encoder_inputs)["sequence_output"]) == expected_compute
    assert _dtype(model.compute_loss(x=features, y_pred=out)) == "float32"
    assert model.encoder.embeddings.word_embeddings.embeddings.dtype == "float32"
    assert isinstance(model.optimizer, keras.optimizers.LossScaleOptimizer) == (
        policy == "mixed_float16"
    )


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_fit_with_jit_compile(tiny_config, pretraining_features):
    model = AlbertPretrainer(AlbertEncoder(tiny_config(num_hidden_layers=1)))
    # SGD: XLA compiles it about twice as fast as Adam on CPU.
    model.compile(optimizer=keras.optimizers.SGD(0.1), jit_compile=True)
    before = model.encoder.embeddings.word_embeddings.embeddings.numpy().copy()
    history = model.fit(
        _dataset(pretraining_features(batch=8), 4), epochs=1, verbose=0, shuffle=False
    ).history
    assert model.optimizer.iterations.numpy() == 2
    assert not np.allclose(before, model.encoder.embeddings.word_embeddings.embeddings.numpy())
    assert all(np.isfinite(history[name][0]) for name in ("loss", *METRICS))


def test_metrics_aggregate_over_steps(model, pretraining_features):
    features = pretraining_features(batch=6, predictions=4)
    features["masked_lm_weights"][:3, 1:] = 0.0  # uneven weights between the two batches
    model.compile(optimizer="sgd", run_eagerly=True)
    result = model.evaluate(_dataset(features, 3), verbose=0, return_dict=True)

    out = model(features)
    weights = features["masked_lm_weights"]
    hits = np.asarray(out["mlm_logits"]).argmax(-1) == features["masked_lm_ids"]
    np.testing.assert_allclose(result["masked_lm_accuracy"], (weights * hits).sum() / weights.sum())
    sop_hits = np.asarray(out["sop_logits"]).argmax(-1) == features["next_sentence_labels"][:, 0]
    np.testing.assert_allclose(result["sentence_order_accuracy"], sop_hits.mean())
    halves = [{k: v[rows] for k, v in features.items()} for rows in (slice(0, 3), slice(3, 6))]
    losses = [float(model.compute_loss(x=part, y_pred=model(part))) for part in halves]
    np.testing.assert_allclose(result["loss"], np.mean(losses), rtol=1e-5)


def test_keras_file_round_trip(model, pretraining_features, tmp_path):
    features = pretraining_features()
    expected = model(features)
    path = tmp_path / "pretrainer.keras"
    model.save(path)
    restored = keras.saving.load_model(path)
    assert isinstance(restored, AlbertPretrainer)
    got = restored(features)
    np.testing.assert_array_equal(got["mlm_logits"], expected["mlm_logits"])
    np.testing.assert_array_equal(got["sop_logits"], expected["sop_logits"])
    word = restored.encoder.embeddings.word_embeddings.embeddings
    assert restored.masked_lm_head.token_embedding.embeddings is word
    assert len(restored.trainable_variables) == len(model.trainable_variables)


def test_config_round_trip(model):
    clone = AlbertPretrainer.from_config(model.get_config())
    assert clone.get_config() == model.get_config()
    assert clone.encoder.config == model.encoder.config


def test_rejects_a_non_encoder():
    with pytest.raises(TypeError, match="AlbertEncoder"):
        AlbertPretrainer(keras.layers.Dense(3))


def test_heads_follow_the_encoder_dtype(tiny_config, pretraining_features, tmp_path):
    """With the global policy float32, a mixed encoder makes mixed heads (bf16 math)."""
    encoder = AlbertEncoder(tiny_config(num_hidden_layers=1), dtype="mixed_bfloat16")
    model = AlbertPretrainer(encoder)
    heads = (model.masked_lm_head, model.masked_lm_head.dense, model.masked_lm_head.layer_norm)
    assert model.dtype_policy.name == "mixed_bfloat16"
    assert model.sentence_order_head.compute_dtype == "bfloat16"
    assert [head.compute_dtype for head in heads] == ["bfloat16"] * 3
    sequence = keras.ops.ones((2, 6, tiny_config().hidden_size))
    assert _dtype(model.masked_lm_head.dense(sequence)) == "bfloat16"
    features = pretraining_features()
    out = model(features)
    assert _dtype(out["mlm_logits"]) == _dtype(out["sop_logits"]) == "float32"
    assert _dtype(model.compute_loss(x=features, y_pred=out)) == "float32"
    # Variables stay float32 (the tied output projection too).
    assert {v.dtype for v in model.trainable_variables} == {"float32"}

    path = tmp_path / "pretrainer.keras"
    model.save(path)
    restored = keras.saving.load_model(path)
    assert restored.dtype_policy.name == restored.encoder.dtype_policy.name == "mixed_bfloat16"
    assert restored.masked_lm_head.dense.compute_dtype == "bfloat16"
    np.testing.assert_array_equal(restored(features)["mlm_logits"], out["mlm_logits"])


def test_mixed_logits_are_close_to_float32(tiny_config, pretraining_features):
    """bf16 math changes the logits by rounding only (same weights)."""
    config = tiny_config(num_hidden_layers=1)
    full = AlbertPretrainer(AlbertEncoder(config))
    mixed = AlbertPretrainer(AlbertEncoder(config, dtype="mixed_bfloat16"))
    mixed.set_weights(full.get_weights())
    features = pretraining_features()
    expected, got = full(features)["mlm_logits"], mixed(features)["mlm_logits"]
    np.testing.assert_allclose(got, expected, atol=0.05 * float(np.abs(expected).max()) + 1e-3)
    assert not np.array_equal(got, expected)  # really computed in bf16
