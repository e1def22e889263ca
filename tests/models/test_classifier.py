"""`AlbertClassifier`: shapes, dtype policy, .keras round trip, fit/evaluate/predict."""

from __future__ import annotations

import keras
import numpy as np
import pytest

from albert_tf.models.classifier import AlbertClassifier
from albert_tf.models.encoder import AlbertEncoder

BATCH, LENGTH = 8, 12


def random_features(vocab_size: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, LENGTH + 1, size=BATCH)
    mask = (np.arange(LENGTH)[None, :] < lengths[:, None]).astype(np.int32)
    return {
        "input_word_ids": (rng.integers(5, vocab_size, size=(BATCH, LENGTH)) * mask).astype(
            np.int32
        ),
        "input_mask": mask,
        "input_type_ids": (np.arange(LENGTH)[None, :] >= lengths[:, None] // 2).astype(np.int32)
        * mask,
    }


def test_round_trip_keeps_config_and_predictions(tiny_config, tmp_path):
    model = AlbertClassifier(AlbertEncoder(tiny_config()), num_outputs=3, dropout_rate=0.2)
    features = random_features(tiny_config().vocab_size)
    logits = model.predict(features, verbose=0)
    assert logits.shape == (BATCH, 3) and logits.dtype == np.float32
    path = str(tmp_path / "classifier.keras")
    model.save(path)
    restored = keras.saving.load_model(path)
    assert isinstance(restored, AlbertClassifier)
    assert restored.num_outputs == 3 and restored.dropout_rate == 0.2
    assert restored.encoder.config == tiny_config()
    np.testing.assert_allclose(restored.predict(features, verbose=0), logits, atol=1e-5)
    # Dropout is active in training mode only.
    trained_mode = model(features, training=True).numpy()
    assert not np.allclose(trained_mode, logits, atol=1e-6)


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_fit_a_few_steps_reduces_the_loss(tiny_config):
    keras.utils.set_random_seed(0)
    model = AlbertClassifier(AlbertEncoder(tiny_config()), num_outputs=2, dropout_rate=0.0)
    features = random_features(tiny_config().vocab_size, seed=1)
    labels = np.array([0, 1] * (BATCH // 2))
    model.compile(
        optimizer=keras.optimizers.Adam(1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    before = model.evaluate(features, labels, verbose=0, return_dict=True)["loss"]
    model.fit(features, labels, epochs=8, batch_size=BATCH, verbose=0)
    after = model.evaluate(features, labels, verbose=0, return_dict=True)["loss"]
    assert after < before


def test_regression_head_under_mixed_precision(tiny_config):
    encoder = AlbertEncoder(tiny_config(), dtype="mixed_bfloat16")
    model = AlbertClassifier(encoder, num_outputs=1, dtype="mixed_bfloat16")
    assert model.head.compute_dtype == "bfloat16"
    scores = model(random_features(tiny_config().vocab_size), training=False)
    assert tuple(scores.shape) == (BATCH, 1) and scores.dtype == "float32"
    assert AlbertClassifier.from_config(model.get_config()).head.compute_dtype == "bfloat16"


def test_bad_arguments(tiny_config):
    with pytest.raises(TypeError, match="must be an AlbertEncoder"):
        AlbertClassifier("encoder.keras", num_outputs=2)
    with pytest.raises(ValueError, match="num_outputs must be >= 1"):
        AlbertClassifier(AlbertEncoder(tiny_config()), num_outputs=0)


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"sharing": "not_shared"},
        dict(num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2),
        {"num_hidden_layers": 1},  # the first block is the last: both folds in one
        {"embedding_size": 32},  # E == H: no projection to fold
    ],
    ids=["all_shared", "not_shared", "groups_and_inner", "one_layer", "no_projection"],
)
def test_cls_only_last_block_equals_the_full_graph(tiny_config, overrides):
    """`call` computes the last block at [CLS] only, forms no keys or values there and takes the
    first block's input through the embeddings' projection; values and gradients are the
    graph's."""
    import tensorflow as tf

    keras.utils.set_random_seed(0)
    model = AlbertClassifier(AlbertEncoder(tiny_config(**overrides)), 3, dropout_rate=0.0)
    features = random_features(tiny_config().vocab_size, seed=2)
    labels = tf.constant([0, 1, 2, 0, 1, 2, 0, 1])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def loss_and_gradients(forward):
        with tf.GradientTape() as tape:
            value = loss(labels, forward(features, training=True))
        return value, tape.gradient(value, model.trainable_variables)

    full = super(AlbertClassifier, model).call  # Functional: every block at every row.
    ours, reference = loss_and_gradients(model.call), loss_and_gradients(full)
    np.testing.assert_allclose(ours[0], reference[0], rtol=1e-5)
    for got, want, variable in zip(ours[1], reference[1], model.trainable_variables, strict=True):
        got, want = tf.convert_to_tensor(got), tf.convert_to_tensor(want)
        np.testing.assert_allclose(got, want, atol=1e-6, rtol=1e-4, err_msg=variable.path)
    np.testing.assert_allclose(model.predict(features, verbose=0), full(features), atol=1e-5)


def test_last_feed_forward_sees_one_row_per_sequence(tiny_config, monkeypatch):
    model = AlbertClassifier(AlbertEncoder(tiny_config()), 2)
    ffn = model.encoder.layer_blocks[-1][-1].ffn  # shared by every layer (all_shared)
    rows, call = [], ffn.call
    monkeypatch.setattr(ffn, "call", lambda x, **kw: rows.append(x.shape[1]) or call(x, **kw))
    model(random_features(tiny_config().vocab_size), training=True)
    assert rows == [LENGTH] * (tiny_config().num_hidden_layers - 1) + [1]
