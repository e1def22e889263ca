"""The one place that builds a `tf.distribute.Strategy` from a name."""

from __future__ import annotations

import tensorflow as tf

from albert_tf.config_fields import check_choice
from albert_tf.training.training_config import STRATEGIES


def create_strategy(
    name: str = "one_device",
    tpu_address: str | None = None,
    num_gpus: int | None = None,
) -> tf.distribute.Strategy:
    """Returns the distribution strategy called `name`.

    Args:
      name: one of `STRATEGIES`.
      tpu_address: the TPU's gRPC address or name (`--tpu`), for `"tpu"`; empty
        means the local TPU of a TPU VM.
      num_gpus: for `"mirrored"`, how many local GPUs to use (all when None;
        falls back to the CPU, or to logical CPU devices when configured).

    Example:
    >>> strategy = create_strategy("one_device")
    >>> with strategy.scope():
    ...     model = ...  # every variable is created under the scope
    """
    if name == "one_device":
        gpus = tf.config.list_logical_devices("GPU")
        return tf.distribute.OneDeviceStrategy(gpus[0].name if gpus else "/cpu:0")
    if name == "mirrored":
        return tf.distribute.MirroredStrategy(devices=_mirrored_devices(num_gpus))
    if name == "multi_worker_mirrored":
        # Reads the cluster from TF_CONFIG; with no TF_CONFIG it is one worker.
        return tf.distribute.MultiWorkerMirroredStrategy()
    if name == "tpu":
        return _tpu_strategy(tpu_address or "")
    check_choice("strategy", name, STRATEGIES)
    raise AssertionError(f"strategy {name!r} is listed but not built")


def _mirrored_devices(num_gpus: int | None) -> list[str]:
    gpus = [d.name for d in tf.config.list_logical_devices("GPU")]
    if gpus:
        return gpus[:num_gpus] if num_gpus else gpus
    # No GPU: mirror over the logical CPU devices (one unless configured with
    # tf.config.set_logical_device_configuration), which is how tests run it.
    return [d.name for d in tf.config.list_logical_devices("CPU")]


def _tpu_strategy(tpu_address: str) -> tf.distribute.TPUStrategy:
    try:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=tpu_address)
        tf.config.experimental_connect_to_cluster(resolver)
        tf.tpu.experimental.initialize_tpu_system(resolver)
    except (ValueError, RuntimeError, tf.errors.OpError) as e:
        where = f"at {tpu_address!r}" if tpu_address else "on this machine"
        raise RuntimeError(
            f"No TPU is reachable {where} ({type(e).__name__}: {e}). Pass --tpu with the "
            "TPU name or grpc:// address, or choose --strategy one_device / mirrored."
        ) from e
    return tf.distribute.TPUStrategy(resolver)


def configure_logical_cpus(count: int) -> None:
    """Splits the CPU into `count` logical devices (before TF initializes).

    Lets MirroredStrategy run over several replicas on a CPU-only machine, for
    tests and for checking a multi-replica setup without accelerators.
    """
    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(
        cpus[0], [tf.config.LogicalDeviceConfiguration() for _ in range(count)]
    )
