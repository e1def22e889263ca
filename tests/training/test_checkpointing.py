"""find_checkpoint, read_into, error_summary (restore_latest_readable: see test_pretrain.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.training.checkpointing import error_summary, find_checkpoint, read_into


def test_find_checkpoint_from_a_directory_or_a_prefix(tmp_path):
    directory = str(tmp_path / "workdir")
    assert find_checkpoint(str(tmp_path)) is None  # A directory without checkpoints.
    checkpoint = tf.train.Checkpoint(step=tf.Variable(1))
    manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
    first = manager.save(checkpoint_number=1)
    second = manager.save(checkpoint_number=2)
    assert find_checkpoint(directory) == second
    assert find_checkpoint(first) == first
    os.remove(second + ".index")
    assert find_checkpoint(second) is None
    assert find_checkpoint(directory) is None  # The state file names a checkpoint that is gone.
    assert find_checkpoint(str(tmp_path / "nothing")) is None


def test_error_summary_keeps_the_type_and_first_line():
    assert error_summary(ValueError("\n  first line\nsecond line")) == "ValueError: first line"
    assert error_summary(AssertionError()) == "AssertionError: "


def test_read_into_restores_a_part_and_names_a_mismatch(tmp_path):
    saved = tf.train.Checkpoint(model=tf.train.Checkpoint(w=tf.Variable([1.0, 2.0])))
    saved.step = tf.Variable(3)
    prefix = saved.write(str(tmp_path / "ckpt"))
    part = tf.train.Checkpoint(w=tf.Variable([0.0, 0.0]))
    read_into(tf.train.Checkpoint(model=part), prefix, "unused {reason}")  # The step is ignored.
    np.testing.assert_array_equal(part.w.numpy(), [1.0, 2.0])
    other = tf.train.Checkpoint(w=tf.Variable([0.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match=r"^a{b}: no match \(ValueError: .*shape"):
        read_into(tf.train.Checkpoint(model=other), prefix, "a{b}: no match ({reason})")
