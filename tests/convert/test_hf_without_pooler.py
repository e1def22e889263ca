"""Hugging Face backbones saved without the pooler (`AlbertForMaskedLM`,
`AlbertModel(add_pooling_layer=False)`) convert as encoders: HF's sequence output, a pooler drawn
as the original draws it, one warning; any other missing weight is still refused."""

from __future__ import annotations

import logging
import os
import shutil

import keras
import numpy as np
import pytest
import torch
import transformers

from albert_tf.convert.checkpoint_mismatch import CheckpointMismatchError
from albert_tf.convert.convert import convert_checkpoint, load_hf_model, load_model
from albert_tf.convert.hf_checkpoint import load_hf_weights, read_hf_state_dict
from albert_tf.convert.vocabulary_growth import HF_SPM_FILE, grow_checkpoint
from albert_tf.tokenization.vocabulary_extension import extend_sentencepiece
from tests.conftest import TINY_VOCAB_SIZE
from tests.convert.test_hf_checkpoint import TOLERANCE, padded_batch
from tests.convert.test_task_heads import random_hf_model
from tests.domain_text import write_domain_text

POOLER_WARNING = "has no pooler (pooler.weight, pooler.bias): initialized as the original does"


@pytest.fixture(scope="module")
def hf_masked_lm_dir(tiny_model_file, tmp_path_factory):
    """(torch AlbertForMaskedLM, its save_pretrained directory with the tiny `spiece.model`)."""
    model = random_hf_model(transformers.AlbertForMaskedLM, seed=3, vocab_size=TINY_VOCAB_SIZE)
    assert model.albert.pooler is None
    directory = tmp_path_factory.mktemp("hf_masked_lm")
    model.save_pretrained(directory)
    shutil.copyfile(tiny_model_file, directory / HF_SPM_FILE)
    return model, str(directory)


def assert_sequence_output_is_hf(encoder, torch_model, seed: int) -> None:
    """The albert_tf encoder's `sequence_output` is the HF backbone's, on a padded batch."""
    batch = padded_batch(seed)  # ids below 97: old pieces of a grown vocabulary too
    with torch.no_grad():
        expected = torch_model.albert(
            input_ids=torch.tensor(batch["input_ids"]),
            attention_mask=torch.tensor(batch["input_mask"]),
            token_type_ids=torch.tensor(batch["segment_ids"]),
        ).last_hidden_state.numpy()
    inputs = {
        "input_word_ids": batch["input_ids"],
        "input_mask": batch["input_mask"],
        "input_type_ids": batch["segment_ids"],
    }
    actual = np.asarray(encoder(inputs)["sequence_output"])
    assert np.abs(expected).max() > 0.1
    np.testing.assert_allclose(actual, expected, rtol=0, atol=TOLERANCE)


def pooler_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "has no pooler" in r.getMessage()]


def assert_original_pooler(encoder) -> None:
    """Kernel truncated normal with stddev initializer_range (cut at 2 stddev), bias zeros."""
    stddev = encoder.config.initializer_range
    kernel = np.asarray(encoder.pooler.kernel)
    assert np.abs(kernel).max() <= 2 * stddev
    assert 0.7 * stddev < kernel.std() < 1.0 * stddev  # A 2-stddev cut keeps 0.88 of it.
    np.testing.assert_array_equal(np.asarray(encoder.pooler.bias), 0.0)


def test_masked_lm_converts_with_the_original_pooler_and_one_warning(
    hf_masked_lm_dir, tmp_path, caplog
):
    torch_model, directory = hf_masked_lm_dir
    with caplog.at_level(logging.WARNING):
        output = convert_checkpoint("hf", directory, "albert_tf", str(tmp_path / "out"))
    assert len(pooler_warnings(caplog)) == 1
    assert POOLER_WARNING in pooler_warnings(caplog)[0]
    encoder = load_model("albert_tf", output)
    assert type(encoder).__name__ == "AlbertEncoder"
    assert_sequence_output_is_hf(encoder, torch_model, seed=0)
    assert_original_pooler(encoder)


def test_masked_lm_grows_its_vocabulary(hf_masked_lm_dir, tmp_path, caplog):
    torch_model, directory = hf_masked_lm_dir
    extension = extend_sentencepiece(
        os.path.join(directory, HF_SPM_FILE),
        [write_domain_text(tmp_path)],
        new_pieces=20,
        model_prefix=str(tmp_path / "x"),
    )
    with caplog.at_level(logging.WARNING):
        output = grow_checkpoint("hf", directory, extension.model_file, str(tmp_path / "grown"))
    assert len(pooler_warnings(caplog)) == 1
    encoder = load_model("albert_tf", output)
    assert encoder.config.vocab_size == TINY_VOCAB_SIZE + 20
    assert_sequence_output_is_hf(encoder, torch_model, seed=1)
    assert_original_pooler(encoder)


def test_the_drawn_pooler_follows_the_keras_seed(hf_masked_lm_dir):
    _, directory = hf_masked_lm_dir
    kernels = []
    for seed in (5, 5, 6):
        keras.utils.set_random_seed(seed)
        kernels.append(np.asarray(load_hf_model(directory).pooler.kernel))
    np.testing.assert_array_equal(kernels[0], kernels[1])
    assert not np.array_equal(kernels[0], kernels[2])


@pytest.mark.parametrize(
    "removed, reported",
    [
        (["albert.pooler.bias"], ["pooler.bias"]),  # half a pooler
        (["albert.embeddings.LayerNorm.bias"], ["embeddings.LayerNorm.bias"]),
        # Without the pooler, the rest must still be whole (the pooler is not what is missing).
        (
            ["albert.pooler.weight", "albert.pooler.bias", "albert.embeddings.LayerNorm.bias"],
            ["embeddings.LayerNorm.bias"],
        ),
    ],
)
def test_other_missing_weights_are_still_refused(hf_masked_lm_dir, removed, reported, caplog):
    _, directory = hf_masked_lm_dir
    model = load_hf_model(directory)
    before = [np.array(w) for w in model.get_weights()]
    state = read_hf_state_dict(directory)
    state["albert.pooler.weight"] = np.ones((32, 32), "float32")
    state["albert.pooler.bias"] = np.ones(32, "float32")
    for name in removed:
        del state[name]
    caplog.clear()
    with pytest.raises(CheckpointMismatchError, match="nothing was loaded") as error:
        load_hf_weights(model, state, source="broken")
    message = str(error.value)
    assert f"{len(reported)} missing, 0 unexpected, 0 with a wrong shape" in message
    assert all(f"\n    {name} [" in message for name in reported)
    assert not pooler_warnings(caplog)
    for old, new in zip(before, model.get_weights(), strict=True):
        np.testing.assert_array_equal(old, new)


def test_base_model_without_pooler_converts(hf_masked_lm_dir, tmp_path, caplog):
    # AlbertForMaskedLM's backbone is `AlbertModel(add_pooling_layer=False)`: unprefixed keys.
    torch_model, _ = hf_masked_lm_dir
    torch_model.albert.save_pretrained(tmp_path)
    assert not any("pooler" in name for name in read_hf_state_dict(str(tmp_path)))
    with caplog.at_level(logging.WARNING):
        encoder = load_hf_model(str(tmp_path))
    assert len(pooler_warnings(caplog)) == 1
    assert_sequence_output_is_hf(encoder, torch_model, seed=2)


def test_a_pretrainer_still_needs_the_pooler(hf_masked_lm_dir):
    # The sentence-order head reads the pooled output: no pooler (nor SOP head) is an error.
    _, directory = hf_masked_lm_dir
    with pytest.raises(CheckpointMismatchError, match="albert.pooler.weight"):
        load_hf_model(directory, heads=True)
