"""TensorBoard scalars without the `tensorboard` package.

`tf.summary.scalar` needs `tensorboard` installed (a large dependency the
training does not otherwise need); `tf.summary.write` with the scalars
plugin's metadata writes the same event that TensorBoard shows as a scalar.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.core.framework import summary_pb2

_SCALAR_METADATA = summary_pb2.SummaryMetadata(
    plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")
).SerializeToString()


def write_scalars(writer: tf.summary.SummaryWriter, scalars: dict[str, float], step: int) -> None:
    """Writes `scalars` at `step` and flushes.

    Example:
    >>> writer = tf.summary.create_file_writer(f"{tmp_dir}/logs/train")
    >>> write_scalars(writer, {"loss": 2.5, "learning_rate": 1e-4}, step=100)
    """
    with writer.as_default():
        for name, value in scalars.items():
            tf.summary.write(
                name, tf.constant(value, tf.float32), step=step, metadata=_SCALAR_METADATA
            )
    writer.flush()
