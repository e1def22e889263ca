"""`load_pretrained_encoder`: random init, .keras encoder, bundle with tokenizer, dtype, errors."""

from __future__ import annotations

import numpy as np
import pytest

from albert_tf.export.encoder_bundle import save_encoder_bundle
from albert_tf.finetune.pretrained_encoder import load_pretrained_encoder
from albert_tf.models.encoder import AlbertEncoder


def test_random_init_needs_a_config(tiny_config, tiny_config_file):
    pretrained = load_pretrained_encoder(None, tiny_config_file)
    assert pretrained.encoder.config == tiny_config and pretrained.source == "random"
    with pytest.raises(ValueError, match="pass --albert_config_file"):
        load_pretrained_encoder(None)


def test_keras_file_and_bundle_load_the_same_weights(tmp_path, tiny_config, tiny_model_file):
    encoder = AlbertEncoder(tiny_config)
    keras_file = str(tmp_path / "encoder.keras")
    encoder.save(keras_file)
    bundle = save_encoder_bundle(str(tmp_path / "bundle"), encoder, tiny_model_file)

    from_file = load_pretrained_encoder(keras_file)
    assert from_file.spm_model_file is None
    from_bundle = load_pretrained_encoder(bundle, dtype="mixed_bfloat16")
    assert from_bundle.spm_model_file.endswith("spm.model") and from_bundle.do_lower_case
    assert from_bundle.encoder.embeddings.dtype_policy.name == "mixed_bfloat16"
    for loaded in (from_file.encoder, from_bundle.encoder):
        for expected, actual in zip(encoder.get_weights(), loaded.get_weights(), strict=True):
            np.testing.assert_array_equal(expected, actual)


def test_errors(tmp_path, tiny_config):
    with pytest.raises(FileNotFoundError, match="not found"):
        load_pretrained_encoder(str(tmp_path / "missing"))
    keras_file = str(tmp_path / "encoder.keras")
    AlbertEncoder(tiny_config).save(keras_file)
    other = tmp_path / "other.json"
    tiny_config.replace(num_hidden_layers=1).to_json_file(other)
    with pytest.raises(ValueError, match="differs"):
        load_pretrained_encoder(keras_file, str(other))


def test_hugging_face_and_original_checkpoints_are_converted(
    tmp_path, tiny_config, tiny_model_file
):
    from albert_tf.convert.convert import save_model

    encoder = AlbertEncoder(tiny_config)
    hf_dir = save_model(encoder, "hf", str(tmp_path / "hf"), spm_model_file=tiny_model_file)
    tf1_dir = save_model(encoder, "tf1", str(tmp_path / "tf1"), spm_model_file=tiny_model_file)
    for path in (hf_dir, tf1_dir):
        pretrained = load_pretrained_encoder(path)
        assert pretrained.encoder.config == tiny_config and pretrained.source == path
        for expected, actual in zip(
            encoder.get_weights(), pretrained.encoder.get_weights(), strict=True
        ):
            np.testing.assert_allclose(expected, actual, rtol=1e-6)
    assert load_pretrained_encoder(tf1_dir).spm_model_file.endswith("sample.model")
