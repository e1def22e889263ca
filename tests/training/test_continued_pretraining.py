"""Continued pretraining from a converted directory: new rows first, general records mixed in
and evaluated beside the domain's; the mixing's order."""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.convert.convert import save_model
from albert_tf.errors import UserError
from albert_tf.inputs.pretrain_input import mix_choices, pretrain_dataset
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.runtime import Runtime
from albert_tf.training.pretrain import train_and_evaluate
from tests.training.conftest import SEQ_LENGTH, tiny_pretrain_config, write_records

FIRST_NEW_ROW = 48  # The tiny model's last 16 pieces play the grown vocabulary's new ones.
TABLES = ("embeddings/word_embeddings/embeddings", "masked_lm_head/output_bias")


@pytest.fixture(scope="module")
def general_dir(tmp_path_factory) -> str:
    directory = str(tmp_path_factory.mktemp("general"))
    write_records(os.path.join(directory, "general-0.tfrecord"), 48, seed=11)
    return directory


def test_mix_choices_spread_the_share_evenly():
    choices = np.array(list(mix_choices(0.3).take(1000).as_numpy_iterator()))
    assert choices.sum() == 300
    per_batch = choices.reshape(-1, 10).sum(axis=1)
    assert set(per_batch.tolist()) == {3}


def test_general_records_are_mixed_in_at_the_ratio(record_dir, general_dir):
    def batches(start_batch=0):
        dataset = pretrain_dataset(
            os.path.join(record_dir, "train-*.tfrecord"),
            global_batch_size=8,
            max_seq_length=SEQ_LENGTH,
            max_predictions_per_seq=4,
            is_training=True,
            start_batch=start_batch,
            general_file_patterns=os.path.join(general_dir, "*.tfrecord"),
            general_ratio=0.25,
        )
        return [b["input_ids"].numpy() for b in dataset.take(6 - start_batch)]

    general = {tuple(r) for r in _ids(os.path.join(general_dir, "general-0.tfrecord"))}
    mixed = batches()
    for batch in mixed:
        assert sum(tuple(row) in general for row in batch) == 2  # 25% of 8, in every batch
    for resumed, uninterrupted in zip(batches(start_batch=2), mixed[2:], strict=True):
        np.testing.assert_array_equal(resumed, uninterrupted)


def _ids(path: str) -> np.ndarray:
    spec = {"input_ids": tf.io.FixedLenFeature([SEQ_LENGTH], tf.int64)}
    return np.stack(
        [
            tf.io.parse_single_example(r, spec)["input_ids"].numpy()
            for r in tf.data.TFRecordDataset(path)
        ]
    )


@pytest.mark.parametrize(
    "changes, match",
    [
        (dict(new_rows_only_steps=2), "needs new_rows_from"),
        (dict(general_mix_ratio=0.2), "go together"),
        (dict(general_input_file="x", general_mix_ratio=1.0), r"in \[0, 1\)"),
        (dict(general_eval_file="x"), "with do_eval"),
    ],
)
def test_continued_pretraining_options_are_checked(base_config, changes, match):
    with pytest.raises(UserError, match=match):
        base_config.replace(**changes)


# The run's steps in the graph; compiled with XLA (the new-rows phase included) they compute
# the same: tests/training/test_pretrain_step.py.
@pytest.mark.slow  # A 3-step run with two evaluations.
def test_continued_pretraining_from_a_converted_directory(
    record_dir, general_dir, albert_config_file, tmp_path
):
    config = AlbertConfig.from_json_file(albert_config_file)
    keras.utils.set_random_seed(3)
    start = AlbertPretrainer(AlbertEncoder(config))
    start_dir = save_model(start, "albert_tf", str(tmp_path / "grown"))  # as convert writes it
    general = os.path.join(general_dir, "*.tfrecord")
    run = tiny_pretrain_config(
        record_dir,
        albert_config_file,
        init_checkpoint=start_dir,
        num_train_steps=3,
        save_checkpoints_steps=2,
        do_eval=True,
        optimizer="adamw",  # Weight decay moves weights with a zero gradient: restored.
        new_rows_from=FIRST_NEW_ROW,
        new_rows_only_steps=2,
        general_input_file=general,
        general_mix_ratio=0.25,
        general_eval_file=general,
    )
    workdir = str(tmp_path / "run")
    metrics = train_and_evaluate(run, workdir, runtime=Runtime.for_machine())

    with open(os.path.join(workdir, "eval_results.json")) as f:
        results = json.load(f)
    for name in ("eval", "eval_general"):
        assert 0 <= results[f"{name}/masked_lm_accuracy"] <= 1
        assert results[f"{name}/masked_lm_loss"] == metrics[f"{name}/masked_lm_loss"]
    assert os.path.isdir(os.path.join(workdir, "logs", "eval_general"))

    initial = {v.path: v.numpy() for v in start.weights}
    after_phase = AlbertPretrainer(AlbertEncoder(config))
    tf.train.Checkpoint(model=after_phase).read(os.path.join(workdir, "ckpt-2")).expect_partial()
    for variable in after_phase.weights:
        before, after = initial[variable.path], variable.numpy()
        if variable.path in TABLES:
            np.testing.assert_array_equal(after[:FIRST_NEW_ROW], before[:FIRST_NEW_ROW])
            assert not np.array_equal(after[FIRST_NEW_ROW:], before[FIRST_NEW_ROW:])
        else:
            np.testing.assert_array_equal(after, before, err_msg=variable.path)
    final = keras.saving.load_model(os.path.join(workdir, "encoder.keras"))
    moved = [v.path for v in final.weights if not np.array_equal(v.numpy(), initial[v.path])]
    assert len(moved) == len(final.weights)
