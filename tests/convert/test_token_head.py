"""HF `AlbertForTokenClassification` <-> `AlbertTokenClassifier`: identical logits both ways."""

from __future__ import annotations

import numpy as np
import pytest
import transformers

from albert_tf.convert.convert import load_hf_model, save_model
from albert_tf.models.token_classifier import AlbertTokenClassifier
from tests.convert.test_hf_checkpoint import padded_batch
from tests.convert.test_task_heads import (
    TOLERANCE,
    albert_tf_logits,
    random_hf_model,
    torch_logits,
)

TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


@pytest.fixture(scope="module")
def hf_token_dir(tmp_path_factory):
    torch_model = random_hf_model(
        transformers.AlbertForTokenClassification,
        seed=7,
        num_labels=len(TAGS),
        id2label=dict(enumerate(TAGS)),
        label2id={tag: i for i, tag in enumerate(TAGS)},
    )
    directory = tmp_path_factory.mktemp("hf_token")
    torch_model.save_pretrained(directory)
    return torch_model, str(directory)


def test_hf_token_classifier_loads_with_identical_logits(hf_token_dir):
    torch_model, directory = hf_token_dir
    model = load_hf_model(directory)
    assert isinstance(model, AlbertTokenClassifier)
    assert model.labels == tuple(TAGS)
    batch = padded_batch()
    expected = torch_logits(torch_model, batch)
    assert expected.shape == (3, 12, len(TAGS))
    assert np.abs(expected).max() > 0.1, "trivially small logits"
    np.testing.assert_allclose(albert_tf_logits(model, batch), expected, rtol=0, atol=TOLERANCE)


def test_token_classifier_saves_to_hf_and_back(hf_token_dir, tmp_path):
    _, directory = hf_token_dir
    model = load_hf_model(directory)
    out_dir = save_model(model, "hf", str(tmp_path / "hf"))
    reloaded = transformers.AlbertForTokenClassification.from_pretrained(out_dir).eval()
    assert reloaded.config.id2label == dict(enumerate(TAGS))
    batch = padded_batch(seed=1)
    np.testing.assert_allclose(
        torch_logits(reloaded, batch), albert_tf_logits(model, batch), rtol=0, atol=TOLERANCE
    )


def test_fresh_token_classifier_saves_to_hf(tmp_path, tiny_config_for_hf):
    """An albert_tf-born tagger (not loaded from HF) exports with its weights and tag names."""
    from albert_tf.models.encoder import AlbertEncoder

    model = AlbertTokenClassifier(AlbertEncoder(tiny_config_for_hf), 3, labels=["O", "B-X", "I-X"])
    batch = padded_batch(seed=3)
    albert_tf_logits(model, batch)  # Build.
    out_dir = save_model(model, "hf", str(tmp_path / "hf"))
    reloaded = transformers.AlbertForTokenClassification.from_pretrained(out_dir).eval()
    assert reloaded.config.label2id == {"O": 0, "B-X": 1, "I-X": 2}
    np.testing.assert_allclose(
        torch_logits(reloaded, batch), albert_tf_logits(model, batch), rtol=0, atol=TOLERANCE
    )


@pytest.fixture
def tiny_config_for_hf():
    from albert_tf.config import AlbertConfig
    from tests.convert.test_hf_checkpoint import HF_SHAPES, MAX_POSITIONS, VOCAB_SIZE

    return AlbertConfig(
        vocab_size=VOCAB_SIZE,
        max_position_embeddings=MAX_POSITIONS,
        hidden_act="gelu_new",
        **HF_SHAPES["base_like"],
    )
