"""Tests for albert_tf.models.pretraining_loss."""

import numpy as np
import pytest

from albert_tf.models.pretraining_loss import pretraining_loss_and_metrics


def _log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _case(label_shape):
    rng = np.random.default_rng(3)
    features = {
        "masked_lm_ids": rng.integers(0, 7, (3, 4)).astype("int64"),
        "masked_lm_weights": np.array([[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]], "float32"),
        "next_sentence_labels": np.array([0, 1, 1]).reshape(label_shape).astype("int32"),
    }
    outputs = {
        "mlm_logits": rng.normal(size=(3, 4, 7)).astype("float32"),
        "sop_logits": rng.normal(size=(3, 2)).astype("float32"),
    }
    return features, outputs


@pytest.mark.parametrize("label_shape", [(3, 1), (3,)])
def test_matches_the_original_formulas(label_shape):
    features, outputs = _case(label_shape)
    loss, metrics = pretraining_loss_and_metrics(features, outputs)

    ids, w = features["masked_lm_ids"], features["masked_lm_weights"]
    log_probs = _log_softmax(outputs["mlm_logits"])
    ce = -np.take_along_axis(log_probs, ids[..., None], -1)[..., 0]
    mlm = (w * ce).sum() / (w.sum() + 1e-5)
    hits = outputs["mlm_logits"].argmax(-1) == ids
    labels = features["next_sentence_labels"].reshape(-1)
    sop_ce = -_log_softmax(outputs["sop_logits"])[np.arange(3), labels]

    np.testing.assert_allclose(metrics["masked_lm_loss"], mlm, rtol=1e-5)
    np.testing.assert_allclose(metrics["sentence_order_loss"], sop_ce.mean(), rtol=1e-5)
    np.testing.assert_allclose(loss, mlm + sop_ce.mean(), rtol=1e-5)
    np.testing.assert_allclose(metrics["masked_lm_accuracy"], (w * hits).sum() / w.sum())
    np.testing.assert_allclose(
        metrics["sentence_order_accuracy"], (outputs["sop_logits"].argmax(-1) == labels).mean()
    )


def test_padded_predictions_do_not_count():
    features, outputs = _case((3, 1))
    changed = {**outputs, "mlm_logits": outputs["mlm_logits"].copy()}
    changed["mlm_logits"][features["masked_lm_weights"] == 0] = 100.0
    a, ma = pretraining_loss_and_metrics(features, outputs)
    b, mb = pretraining_loss_and_metrics(features, changed)
    np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(ma["masked_lm_accuracy"], mb["masked_lm_accuracy"])


@pytest.mark.parametrize("weight", [0.0, 0.5])
def test_the_sentence_order_weight_scales_its_term_only(weight):
    features, outputs = _case((3, 1))
    loss, metrics = pretraining_loss_and_metrics(features, outputs, weight)
    expected = metrics["masked_lm_loss"] + weight * metrics["sentence_order_loss"]
    np.testing.assert_allclose(loss, expected, rtol=1e-6)
    assert float(metrics["sentence_order_loss"]) > 0.1  # Reported, whatever its weight.
