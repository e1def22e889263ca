"""export_tfhub's sources (what albert_tf writes) and bad inputs: one clear error, no output."""

from __future__ import annotations

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.errors import MissingInputError, UserError
from albert_tf.export.encoder_bundle import save_encoder_bundle
from albert_tf.export.tfhub import export_tfhub, load_tfhub_source
from albert_tf.export.tfhub_encoder import float32_parts
from albert_tf.models import AlbertEncoder, AlbertPretrainer
from tests.conftest import TINY_ALBERT

CONFIG = AlbertConfig(**{**TINY_ALBERT, "inner_group_num": 2})


def test_float32_parts_of_a_mixed_precision_model():
    model = AlbertPretrainer(AlbertEncoder(CONFIG, dtype="mixed_bfloat16"))
    encoder, head = float32_parts(model)
    assert encoder.compute_dtype == "float32" and head.compute_dtype == "float32"
    assert encoder.output_all_layers
    assert head.token_embedding is encoder.embeddings.word_embeddings
    for copy, original in ((encoder, model.encoder), (head, model.masked_lm_head)):
        for a, b in zip(copy.get_weights(), original.get_weights(), strict=True):
            np.testing.assert_array_equal(a, b)


def test_bad_sources_are_one_clear_error_and_write_nothing(tmp_path, tiny_model_file):
    empty = tmp_path / "empty"
    empty.mkdir()
    other = tmp_path / "dense.keras"
    keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]).save(other)
    export_dir = tmp_path / "out"
    with pytest.raises(MissingInputError, match="no ALBERT model here"):
        export_tfhub(str(export_dir), str(empty), tiny_model_file)
    with pytest.raises(
        UserError, match=r"dense.keras holds a Sequential, not an ALBERT model, export"
    ):
        export_tfhub(str(export_dir), str(other), tiny_model_file)
    small = AlbertEncoder(CONFIG.replace(vocab_size=50))
    with pytest.raises(UserError, match="has 300 pieces but the encoder's vocab_size is 50"):
        export_tfhub(str(export_dir), small, tiny_model_file)
    with pytest.raises(UserError, match="no SentencePiece model came with the model"):
        export_tfhub(str(export_dir), small)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dense.keras", "empty"]


def test_sources_albert_tf_writes(tmp_path, tiny_model_file):
    hub_pretrainer = AlbertPretrainer(AlbertEncoder(CONFIG))
    hub_pretrainer.save(tmp_path / "pretrainer.keras")
    assert isinstance(load_tfhub_source(str(tmp_path)).model, AlbertPretrainer)
    bundle = save_encoder_bundle(
        str(tmp_path / "bundle"), hub_pretrainer.encoder, tiny_model_file, do_lower_case=False
    )
    source = load_tfhub_source(bundle)
    assert isinstance(source.model, AlbertEncoder)
    assert source.spm_model_file == os.path.join(bundle, "spm.model")
    assert source.do_lower_case is False
    # A pretraining workdir: its latest checkpoint (MLM head included), the config beside it.
    workdir = tmp_path / "workdir"
    checkpoint = tf.train.Checkpoint(model=hub_pretrainer)
    tf.train.CheckpointManager(checkpoint, str(workdir), max_to_keep=1).save()
    CONFIG.to_json_file(workdir / "albert_config.json")
    restored = load_tfhub_source(str(workdir)).model
    assert isinstance(restored, AlbertPretrainer)
    for a, b in zip(restored.get_weights(), hub_pretrainer.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
