"""A fine-tuning fit's files stay complete when a save dies midway (SIGKILL, full disk).

The save is made to die deterministically: `save_weights` writes half a file and raises on
its second call. The backup must still be epoch 1's (a rerun resumes there) and no epoch-2
weights file may exist. With Keras' own in-place writes (or if Keras stops calling the
`_save_model` hook `AtomicBackupAndRestore` overrides) the half file would be the backup.
"""

from __future__ import annotations

import json
import os

import keras
import numpy as np
import pytest

from albert_tf.finetune.atomic_backup import AtomicBackupAndRestore
from albert_tf.finetune.epoch_weights import EpochWeights


class _SaveDied(Exception):
    pass


def _model() -> keras.Model:
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    return model


def _fit(model: keras.Model, output: str) -> keras.callbacks.History:
    x, y = np.ones((8, 3), "float32"), np.zeros((8, 2), "float32")
    callbacks = [
        AtomicBackupAndRestore(os.path.join(output, "backup"), delete_checkpoint=False),
        EpochWeights(os.path.join(output, "checkpoints", "epoch-{epoch:02d}.weights.h5")),
    ]
    return model.fit(x, y, batch_size=4, epochs=3, callbacks=callbacks, verbose=0)


def test_a_save_that_dies_midway_leaves_the_last_complete_backup(tmp_path, monkeypatch):
    save_weights = keras.Model.save_weights
    calls = []

    def dies_on_the_third_save(self, filepath, *args, **kwargs):
        calls.append(filepath)  # Epoch 1: backup, epoch weights; epoch 2: the backup dies.
        if len(calls) == 3:
            with open(filepath, "wb") as f:
                f.write(b"\x89HDF\r\n\x1a\n half a file")
            raise _SaveDied(filepath)
        return save_weights(self, filepath, *args, **kwargs)

    monkeypatch.setattr(keras.Model, "save_weights", dies_on_the_third_save)
    with pytest.raises(_SaveDied):
        _fit(_model(), str(tmp_path))
    monkeypatch.undo()

    assert os.path.basename(calls[2]).startswith(".tmp-")  # The dying write was to a temp name.
    backup = tmp_path / "backup"
    assert json.loads((backup / "training_metadata.json").read_text())["epoch"] == 1
    assert sorted(os.listdir(tmp_path / "checkpoints")) == ["epoch-01.weights.h5"]
    resumed = _model()
    history = _fit(resumed, str(tmp_path))  # Loads the backup: epochs 2 and 3 only.
    assert len(history.history["loss"]) == 2
    assert int(resumed.optimizer.iterations) == 3 * 2
    assert sorted(os.listdir(tmp_path / "checkpoints")) == [
        f"epoch-0{n}.weights.h5" for n in (1, 2, 3)
    ]
    assert not [name for name in os.listdir(backup) if name.startswith(".tmp-")]


def test_epoch_weights_wants_a_weights_file_pattern():
    with pytest.raises(ValueError, match=r"\.weights\.h5"):
        EpochWeights("/tmp/run/epoch-{epoch}.h5")
