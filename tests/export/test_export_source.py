"""`load_export_source`: every model albert_tf writes, with what came with it; bad sources are
one clear error."""

from __future__ import annotations

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.errors import MissingInputError, UserError
from albert_tf.export.encoder_bundle import save_encoder_bundle
from albert_tf.export.export_source import ExportSource, load_export_source
from albert_tf.export.model_kind import model_kind
from albert_tf.models import AlbertClassifier, AlbertEncoder, AlbertPretrainer
from tests.conftest import TINY_ALBERT

CONFIG = AlbertConfig(**{**TINY_ALBERT, "inner_group_num": 2})


def test_a_model_no_export_knows_is_refused(tmp_path):
    with pytest.raises(UserError, match="a Sequential, not an ALBERT model albert_tf exports"):
        model_kind(keras.Sequential([keras.layers.Dense(2)]))
    with pytest.raises(UserError, match="a Sequential, not an ALBERT model"):
        ExportSource(keras.Sequential([keras.layers.Dense(2)]))
    empty = tmp_path / "empty"
    empty.mkdir()
    other = tmp_path / "dense.keras"
    keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]).save(other)
    with pytest.raises(MissingInputError, match="no ALBERT model here"):
        load_export_source(str(empty))
    with pytest.raises(MissingInputError, match="nothing here"):
        load_export_source(str(tmp_path / "missing"))
    with pytest.raises(
        UserError, match=r"dense.keras holds a Sequential, not an ALBERT model albert_tf exports"
    ):
        load_export_source(str(other))


def test_sources_albert_tf_writes(tmp_path, tiny_model_file):
    pretrainer = AlbertPretrainer(AlbertEncoder(CONFIG))
    pretrainer.save(tmp_path / "pretrainer.keras")
    converted = load_export_source(str(tmp_path))
    assert isinstance(converted.model, AlbertPretrainer) and converted.kind == "encoder"
    bundle = save_encoder_bundle(
        str(tmp_path / "bundle"), pretrainer.encoder, tiny_model_file, do_lower_case=False
    )
    source = load_export_source(bundle)
    assert isinstance(source.model, AlbertEncoder)
    assert source.spm_model_file == os.path.join(bundle, "spm.model")
    assert source.do_lower_case is False
    # What the user passes replaces what came with the model.
    cased = load_export_source(bundle, spm_model_file="other.model", do_lower_case=True)
    assert cased.spm_model_file == "other.model" and cased.do_lower_case is True
    # A pretraining workdir: its latest checkpoint (MLM head included), the config beside it.
    workdir = tmp_path / "workdir"
    checkpoint = tf.train.Checkpoint(model=pretrainer)
    tf.train.CheckpointManager(checkpoint, str(workdir), max_to_keep=1).save()
    CONFIG.to_json_file(workdir / "albert_config.json")
    restored = load_export_source(str(workdir)).model
    assert isinstance(restored, AlbertPretrainer)
    for a, b in zip(restored.get_weights(), pretrainer.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_task_source_carries_its_task_and_the_casing_passed():
    model = AlbertClassifier(AlbertEncoder(CONFIG), 2)
    task = {"labels": ["no", "yes"], "max_seq_length": 32, "is_pair": True}
    source = ExportSource(model, "spm.model", task=task)
    assert (source.kind, source.labels, source.seq_length) == ("classifier", ["no", "yes"], 32)
    assert source.is_pair and not source.is_regression and source.encoder is model.encoder
    lower = source.with_tokenizer(do_lower_case=False)
    assert lower.task["do_lower_case"] is False and source.task is task
    assert lower.spm_model_file == "spm.model"
