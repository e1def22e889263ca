"""A full disk during a checkpoint save: the previous checkpoint stays and restores, the error
names the output directory and the space needed (see tests/disk_full.py)."""

from __future__ import annotations

import pytest
import tensorflow as tf

from albert_tf.errors import DiskFullError
from albert_tf.runtime import Runtime
from albert_tf.training.pretrain import train_and_evaluate
from tests.disk_full import file_size_limit
from tests.training.conftest import tiny_pretrain_config

LIMIT = 4096  # Bytes per file: smaller than the tiny model's checkpoint data file.


@pytest.mark.slow  # A run whose save fails.
def test_checkpoint_save_fails_part_way_previous_checkpoint_restores(
    tmp_path, record_dir, albert_config_file
):
    workdir = str(tmp_path / "run")
    config = tiny_pretrain_config(record_dir, albert_config_file, num_train_steps=3)
    train_and_evaluate(config, workdir, runtime=Runtime.for_machine())
    assert tf.train.latest_checkpoint(workdir).endswith("ckpt-3")
    with file_size_limit(LIMIT), pytest.raises(DiskFullError) as raised:
        train_and_evaluate(
            config.replace(num_train_steps=6), workdir, runtime=Runtime.for_machine()
        )
    message = str(raised.value)
    assert workdir in message and "needed" in message and "free" in message, message
    assert tf.train.latest_checkpoint(workdir).endswith("ckpt-3")
    metrics = train_and_evaluate(
        config.replace(num_train_steps=6), workdir, runtime=Runtime.for_machine()
    )  # Space is back.
    assert metrics["step"] == 6
