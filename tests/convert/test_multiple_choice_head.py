"""HF `AlbertForMultipleChoice` <-> `AlbertMultipleChoice`: identical logits both ways.

The style of test_task_heads.py with inputs of shape [batch, num_choices, length].
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
import torch
import transformers

from albert_tf.convert.convert import load_hf_model, load_tf1_model, save_model
from albert_tf.models.multiple_choice import AlbertMultipleChoice
from tests.convert.test_hf_checkpoint import padded_batch
from tests.convert.test_task_heads import TOLERANCE, albert_tf_logits, random_hf_model

NUM_CHOICES = 3


def choice_batch(seed: int) -> dict[str, np.ndarray]:
    """Two questions of 3 options: the rows of two `padded_batch`es, padded and full."""
    rows = [padded_batch(seed), padded_batch(seed + 100)]
    return {name: np.stack([row[name] for row in rows]) for name in rows[0]}


def torch_choice_logits(model, batch) -> np.ndarray:
    with torch.no_grad():
        return model(
            input_ids=torch.tensor(batch["input_ids"]),
            attention_mask=torch.tensor(batch["input_mask"]),
            token_type_ids=torch.tensor(batch["segment_ids"]),
        ).logits.numpy()


def albert_tf_choice_logits(model, batch) -> np.ndarray:
    features = {
        "input_word_ids": tf.constant(batch["input_ids"], tf.int32),
        "input_mask": tf.constant(batch["input_mask"], tf.int32),
        "input_type_ids": tf.constant(batch["segment_ids"], tf.int32),
    }
    return np.asarray(model(features, training=False))


@pytest.fixture(scope="module")
def hf_choice_dir(tmp_path_factory):
    torch_model = random_hf_model(transformers.AlbertForMultipleChoice, seed=7)
    directory = tmp_path_factory.mktemp("hf_multiple_choice")
    torch_model.save_pretrained(directory)
    return torch_model, str(directory)


def test_hf_multiple_choice_loads_with_identical_logits(hf_choice_dir):
    torch_model, directory = hf_choice_dir
    model = load_hf_model(directory)
    assert isinstance(model, AlbertMultipleChoice)
    batch = choice_batch(seed=0)
    expected = torch_choice_logits(torch_model, batch)
    assert expected.shape == (2, NUM_CHOICES)
    assert np.abs(expected).max() > 0.1, "trivially small logits"
    assert np.ptp(expected, axis=1).min() > 1e-3, "options must score differently"
    actual = albert_tf_choice_logits(model, batch)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=TOLERANCE)


def test_multiple_choice_saves_to_hf_and_back(hf_choice_dir, tmp_path):
    _, directory = hf_choice_dir
    model = load_hf_model(directory)
    out_dir = save_model(model, "hf", str(tmp_path / "hf"))
    reloaded = transformers.AlbertForMultipleChoice.from_pretrained(out_dir).eval()
    assert reloaded.config.architectures == ["AlbertForMultipleChoice"]
    batch = choice_batch(seed=1)
    np.testing.assert_allclose(
        torch_choice_logits(reloaded, batch),
        albert_tf_choice_logits(model, batch),
        rtol=0,
        atol=TOLERANCE,
    )
    again = load_hf_model(out_dir)  # albert_tf -> HF -> albert_tf keeps the class.
    assert isinstance(again, AlbertMultipleChoice)


def test_original_layout_holds_the_scorer_as_a_one_output_head(hf_choice_dir, tmp_path):
    _, directory = hf_choice_dir
    model = load_hf_model(directory)
    out_dir = save_model(model, "tf1", str(tmp_path / "tf1"))
    classifier = load_tf1_model(out_dir)  # The original names cannot tell RACE from a regressor.
    assert type(classifier).__name__ == "AlbertClassifier" and classifier.num_outputs == 1
    batch = choice_batch(seed=2)
    flat = {name: value.reshape(-1, value.shape[-1]) for name, value in batch.items()}
    np.testing.assert_allclose(
        albert_tf_logits(classifier, flat).reshape(2, NUM_CHOICES),
        albert_tf_choice_logits(model, batch),
        rtol=0,
        atol=1e-6,
    )


def test_padded_options_get_no_probability(hf_choice_dir):
    _, directory = hf_choice_dir
    model = load_hf_model(directory)
    batch = choice_batch(seed=3)
    for name in batch:
        batch[name][0, 2] = 0  # Question 0 has two options.
    logits = albert_tf_choice_logits(model, batch)
    probabilities = tf.nn.softmax(logits).numpy()
    assert probabilities[0, 2] == 0.0
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-6)
