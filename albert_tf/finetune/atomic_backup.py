"""`AtomicBackupAndRestore`: Keras' `BackupAndRestore`, never half-written by a kill.

Keras writes `backup/latest.weights.h5` in place: a SIGKILL during that write leaves a file
`h5py` cannot open, and with no earlier backup to fall back to (the first epoch) the rerun
that should resume fails instead. Here each file of the backup is written under a temporary
name and renamed into place (`albert_tf.atomic_files`), so the backup is always the last
complete one; a killed writer's temp file is swept when the next run takes the output's lock.

This overrides `BackupAndRestore._save_model`, a private hook of Keras (3.x): it is the one
place the backup is written. tests/finetune/test_atomic_backup.py fails if Keras stops calling
it (a write that dies midway would then show in the backup).
"""

from __future__ import annotations

import json

import keras

from albert_tf.atomic_files import atomic_output_file, atomic_write_text


class AtomicBackupAndRestore(keras.callbacks.BackupAndRestore):
    """`keras.callbacks.BackupAndRestore` (same arguments) with atomic backup writes.

    Illustration (not run):
        model.fit(dataset, epochs=3, callbacks=[AtomicBackupAndRestore("/tmp/run/backup")])
    """

    def _save_model(self) -> None:
        # Weights first, then the epoch they belong to: a kill between the two renames resumes
        # one epoch early on the newer weights (the optimizer's step count, inside the weights,
        # keeps the learning-rate schedule right), never on weights that are not there.
        with atomic_output_file(self._weights_path) as temp_path:
            self.model.save_weights(temp_path, overwrite=True)
        metadata = {"epoch": self._current_epoch, "batch": self._last_batch_seen}
        atomic_write_text(self._training_metadata_path, json.dumps(metadata))
