"""Hugging Face <-> albert_tf: outputs equal PyTorch's, names, ties and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers

from albert_tf.config import AlbertConfig
from albert_tf.convert.checkpoint_mismatch import CheckpointMismatchError
from albert_tf.convert.convert import build_model, load_hf_model, save_model
from albert_tf.convert.hf_checkpoint import hf_state_dict, load_hf_weights, read_hf_state_dict

TOLERANCE = 1e-5
VOCAB_SIZE = 97
MAX_POSITIONS = 40
# Tiny shapes: base-like (E < H), several groups with inner groups, and E == H.
HF_SHAPES = {
    "base_like": dict(
        embedding_size=16, hidden_size=32, num_hidden_layers=3, num_attention_heads=4,
        intermediate_size=37,
    ),
    "groups": dict(
        embedding_size=24, hidden_size=32, num_hidden_layers=4, num_hidden_groups=2,
        inner_group_num=2, num_attention_heads=2, intermediate_size=64,
    ),
    "e_equals_h": dict(
        embedding_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64,
    ),
}  # fmt: skip


def random_hf_pretraining_model(shape: dict, seed: int) -> transformers.AlbertForPreTraining:
    """A float32 eval-mode HF model with every parameter random (biases, LayerNorms too)."""
    torch.manual_seed(seed)
    config = transformers.AlbertConfig(
        vocab_size=VOCAB_SIZE,
        max_position_embeddings=MAX_POSITIONS,
        hidden_act="gelu_new",
        initializer_range=0.2,
        **shape,
    )
    model = transformers.AlbertForPreTraining(config).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    return model


def padded_batch(seed: int = 0) -> dict[str, np.ndarray]:
    """Three sequences of length 12: one full, two padded; two segments each."""
    rng = np.random.default_rng(seed)
    batch, length = 3, 12
    ids = rng.integers(5, VOCAB_SIZE, (batch, length))
    mask = np.ones((batch, length), "int64")
    mask[1, 8:] = 0
    mask[2, 5:] = 0
    segments = np.zeros((batch, length), "int64")
    segments[:, 4:] = 1
    return {"input_ids": ids * mask, "input_mask": mask, "segment_ids": segments * mask}


def torch_outputs(model, batch) -> dict[str, np.ndarray]:
    inputs = dict(
        input_ids=torch.tensor(batch["input_ids"]),
        attention_mask=torch.tensor(batch["input_mask"]),
        token_type_ids=torch.tensor(batch["segment_ids"]),
    )
    with torch.no_grad():
        base = model.albert if hasattr(model, "albert") else model
        backbone = base(**inputs)
        outputs = {
            "sequence_output": backbone.last_hidden_state.numpy(),
            "pooled_output": backbone.pooler_output.numpy(),
        }
        if hasattr(model, "albert"):
            heads = model(**inputs)
            outputs["mlm_logits"] = heads.prediction_logits.numpy()
            outputs["sop_logits"] = heads.sop_logits.numpy()
    return outputs


def albert_tf_outputs(model, batch) -> dict[str, np.ndarray]:
    encoder = getattr(model, "encoder", model)
    outputs = encoder(
        {
            "input_word_ids": batch["input_ids"],
            "input_mask": batch["input_mask"],
            "input_type_ids": batch["segment_ids"],
        }
    )
    result = {name: np.asarray(outputs[name]) for name in ("sequence_output", "pooled_output")}
    if encoder is not model:
        # MLM logits at every position, to compare with PyTorch's full prediction_logits.
        positions = np.tile(np.arange(batch["input_ids"].shape[1]), (len(batch["input_ids"]), 1))
        heads = model({**batch, "masked_lm_positions": positions})
        result.update({name: np.asarray(heads[name]) for name in ("mlm_logits", "sop_logits")})
    return result


def assert_outputs_close(actual: dict, expected: dict) -> None:
    assert sorted(actual) == sorted(expected)
    for name in expected:
        np.testing.assert_allclose(
            actual[name], expected[name], rtol=0, atol=TOLERANCE, err_msg=name
        )
        assert np.abs(expected[name]).max() > 0.1, f"{name} is trivially small"


@pytest.fixture(scope="module", params=sorted(HF_SHAPES))
def hf_pretraining_dir(request, tmp_path_factory):
    """(torch model, directory written by save_pretrained) for each tiny shape."""
    model = random_hf_pretraining_model(HF_SHAPES[request.param], seed=len(request.param))
    directory = tmp_path_factory.mktemp(f"hf_{request.param}")
    model.save_pretrained(directory)
    return model, str(directory)


@pytest.fixture(scope="module")
def base_like_hf_dir(tmp_path_factory):
    """The base-like shape only, for the tests of names, ties and errors."""
    model = random_hf_pretraining_model(HF_SHAPES["base_like"], seed=11)
    directory = tmp_path_factory.mktemp("hf_base_like_single")
    model.save_pretrained(directory)
    return model, str(directory)


def test_hf_to_albert_tf_matches_pytorch(hf_pretraining_dir):
    torch_model, directory = hf_pretraining_dir
    model = load_hf_model(directory)
    assert type(model).__name__ == "AlbertPretrainer"
    assert model.encoder.config.hidden_act == "gelu"  # HF gelu_new = original tanh gelu.
    batch = padded_batch()
    assert_outputs_close(albert_tf_outputs(model, batch), torch_outputs(torch_model, batch))


def test_albert_tf_to_hf_and_back_matches(hf_pretraining_dir, tmp_path):
    _, directory = hf_pretraining_dir
    model = load_hf_model(directory)
    out_dir = save_model(model, "hf", str(tmp_path / "exported"))
    reloaded = transformers.AlbertForPreTraining.from_pretrained(out_dir).eval()
    batch = padded_batch(seed=1)
    assert_outputs_close(torch_outputs(reloaded, batch), albert_tf_outputs(model, batch))
    # The written tensors are exactly the model's: a second round trip is lossless.
    again = hf_state_dict(load_hf_model(out_dir))
    for name, value in hf_state_dict(model).items():
        np.testing.assert_array_equal(again[name], value, err_msg=name)


def test_encoder_takes_backbone_of_pretraining_weights(hf_pretraining_dir, tmp_path):
    torch_model, directory = hf_pretraining_dir
    encoder = load_hf_model(directory, heads=False)
    assert type(encoder).__name__ == "AlbertEncoder"
    batch = padded_batch(seed=2)
    expected = torch_outputs(torch_model.albert, batch)
    assert_outputs_close(albert_tf_outputs(encoder, batch), expected)
    # An encoder exports as AlbertModel (no `albert.` prefix), loadable by transformers.
    out_dir = save_model(encoder, "hf", str(tmp_path / "encoder"))
    hf_encoder = transformers.AlbertModel.from_pretrained(out_dir).eval()
    assert_outputs_close(torch_outputs(hf_encoder, batch), expected)


def randomized_albert_tf_pretrainer(config: AlbertConfig, seed: int = 0):
    model = build_model(config, heads=True)
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        value = rng.normal(0.0, 0.2, variable.shape)
        if variable.path.endswith("gamma"):
            value += 1.0
        variable.assign(value.astype("float32"))
    return model


def test_albert_tf_groups_to_hf_matches(tmp_path):
    config = AlbertConfig(
        vocab_size=VOCAB_SIZE, embedding_size=8, hidden_size=16, num_hidden_layers=6,
        num_hidden_groups=3, inner_group_num=2, num_attention_heads=2, intermediate_size=20,
        max_position_embeddings=MAX_POSITIONS,
    )  # fmt: skip
    model = randomized_albert_tf_pretrainer(config)
    out_dir = save_model(model, "hf", str(tmp_path / "hf"))
    reloaded = transformers.AlbertForPreTraining.from_pretrained(out_dir).eval()
    assert reloaded.config.hidden_act == "gelu_new"
    batch = padded_batch(seed=3)
    assert_outputs_close(torch_outputs(reloaded, batch), albert_tf_outputs(model, batch))


def test_e_equals_h_loads_with_hf_layout_and_round_trips_unchanged(tmp_path):
    # HF always has embedding_hidden_mapping_in; with E == H it is a full random matrix here.
    torch_model = random_hf_pretraining_model(HF_SHAPES["e_equals_h"], seed=5)
    mapping = torch_model.albert.encoder.embedding_hidden_mapping_in.weight.detach().numpy()
    assert np.abs(mapping - np.eye(len(mapping))).max() > 0.1  # not the identity
    torch_model.save_pretrained(tmp_path / "hf")
    model = load_hf_model(str(tmp_path / "hf"))
    assert model.encoder.config.embedding_projection == "always"
    assert model.encoder.embeddings.projection is not None
    batch = padded_batch(seed=4)
    assert_outputs_close(albert_tf_outputs(model, batch), torch_outputs(torch_model, batch))
    out_dir = save_model(model, "hf", str(tmp_path / "back"))
    original = read_hf_state_dict(str(tmp_path / "hf"))
    written = read_hf_state_dict(out_dir)
    for name, value in written.items():
        np.testing.assert_array_equal(value, original[name], err_msg=name)
    # The original TF1 layout has no such projection: refused, not silently dropped.
    with pytest.raises(ValueError, match="no original TF1 counterpart"):
        save_model(model, "tf1", str(tmp_path / "tf1"))


def test_e_equals_h_in_the_original_layout_refuses_a_non_identity_projection(tmp_path):
    torch_model = random_hf_pretraining_model(HF_SHAPES["e_equals_h"], seed=5)
    torch_model.save_pretrained(tmp_path)
    original_layout = AlbertConfig(
        vocab_size=VOCAB_SIZE, max_position_embeddings=MAX_POSITIONS, hidden_act="gelu",
        initializer_range=0.2, **HF_SHAPES["e_equals_h"],
    )  # fmt: skip
    assert original_layout.embedding_projection == "auto"
    assert build_model(original_layout, heads=True).encoder.embeddings.projection is None
    with pytest.raises(
        CheckpointMismatchError, match="embedding_hidden_mapping_in.*not the identity"
    ):
        load_hf_model(str(tmp_path), config=original_layout)


def test_tied_decoder_keys_are_accepted_and_checked(base_like_hf_dir):
    _, directory = base_like_hf_dir
    state = read_hf_state_dict(directory)
    model = load_hf_model(directory)
    # Old checkpoints also carry the tied names; equal values load fine.
    state["predictions.decoder.weight"] = state["albert.embeddings.word_embeddings.weight"]
    state["predictions.decoder.bias"] = state["predictions.bias"]
    load_hf_weights(model, state, source="tied")
    untied = dict(state, **{"predictions.decoder.weight": state["predictions.decoder.weight"] + 1})
    with pytest.raises(CheckpointMismatchError, match="predictions.decoder.weight differs"):
        load_hf_weights(model, untied, source="untied")


def test_pytorch_bin_reads_like_safetensors(base_like_hf_dir, tmp_path):
    torch_model, directory = base_like_hf_dir
    torch.save(torch_model.state_dict(), tmp_path / "pytorch_model.bin")
    from_bin = read_hf_state_dict(str(tmp_path))
    from_safetensors = read_hf_state_dict(directory)
    for name, value in from_safetensors.items():
        np.testing.assert_array_equal(from_bin[name], value, err_msg=name)


def test_mismatched_hf_weights_list_every_problem(base_like_hf_dir):
    _, directory = base_like_hf_dir
    model = load_hf_model(directory)
    before = [np.array(w) for w in model.get_weights()]
    state = read_hf_state_dict(directory)
    del state["albert.pooler.bias"]
    state["albert.extra.weight"] = np.zeros(3, "float32")
    state["sop_classifier.classifier.bias"] = np.zeros(3, "float32")
    with pytest.raises(CheckpointMismatchError) as error:
        load_hf_weights(model, state, source="broken")
    message = str(error.value)
    assert "1 missing, 1 unexpected, 1 with a wrong shape" in message
    for name in ("albert.pooler.bias", "albert.extra.weight", "sop_classifier.classifier.bias"):
        assert name in message
    # Nothing was assigned.
    for old, new in zip(before, model.get_weights(), strict=True):
        np.testing.assert_array_equal(old, new)


def test_base_model_weights_into_pretrainer_report_missing_heads(base_like_hf_dir, tmp_path):
    torch_model, _ = base_like_hf_dir
    torch_model.albert.save_pretrained(tmp_path)
    with pytest.raises(CheckpointMismatchError, match="predictions.bias"):
        load_hf_model(str(tmp_path), heads=True)
    assert type(load_hf_model(str(tmp_path))).__name__ == "AlbertEncoder"


def test_other_sharing_modes_have_no_hf_counterpart(tmp_path):
    config = AlbertConfig(
        vocab_size=50, embedding_size=8, hidden_size=16, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=16, sharing="not_shared",
    )  # fmt: skip
    with pytest.raises(ValueError, match="sharing='not_shared' has no"):
        save_model(build_model(config, heads=False), "hf", str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()
    assert list(tmp_path.iterdir()) == []  # No temporary leftovers either.
