"""`EpochWeights`: the weights after each epoch, each file complete or absent.

What `keras.callbacks.ModelCheckpoint(pattern, save_weights_only=True)` writes, but through a
temporary name and a rename (`albert_tf.atomic_files`): a kill during a save leaves no
`epoch-NN.weights.h5` that looks complete but does not load.
"""

from __future__ import annotations

import keras

from albert_tf.atomic_files import atomic_output_file


class EpochWeights(keras.callbacks.Callback):
    """Saves `model.save_weights` to `pattern.format(epoch=N)` after epoch N (1-based).

    Args:
        pattern: a path with an `{epoch}` field, ending in `.weights.h5`.

    Illustration (not run):
        pattern = "/tmp/run/checkpoints/epoch-{epoch:02d}.weights.h5"
        model.fit(dataset, epochs=3, callbacks=[EpochWeights(pattern)])
    """

    def __init__(self, pattern: str):
        super().__init__()
        if not pattern.endswith(".weights.h5"):
            raise ValueError(f"EpochWeights: the pattern must end in .weights.h5, got {pattern!r}")
        self.pattern = pattern

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        with atomic_output_file(self.pattern.format(epoch=epoch + 1)) as temp_path:
            self.model.save_weights(temp_path, overwrite=True)
