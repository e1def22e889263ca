"""Pretraining under MirroredStrategy (2 logical CPUs) and MultiWorkerMirroredStrategy.

Each case runs in processes of its own (forked before TensorFlow initializes, by
`tests.commands`): logical devices and TF_CONFIG must be set before it does.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import textwrap
import time

import numpy as np
import pytest
import tensorflow as tf

from tests import commands

# Runs train_and_evaluate for each {"config", "workdir", "weights"} of the JSON list argv[1],
# one after the other, saving each run's final trainable weights of this process to its
# "weights" file (npz) and printing its metrics to stdout.
_CHILD = textwrap.dedent(
    """
    import json, logging, sys
    import numpy as np
    logging.basicConfig(level=logging.INFO)
    if "--logical-cpus" in sys.argv:
        from albert_tf.training.strategy import configure_logical_cpus
        configure_logical_cpus(2)
    from albert_tf.runtime import Runtime
    from albert_tf.training import pretrain
    from albert_tf.training.pretrain_config import PretrainConfig

    train = pretrain._Run.train
    for run in json.loads(sys.argv[1]):
        def train_and_keep_weights(self, path=run["weights"]):
            metrics = train(self)
            np.savez(path, *[v.numpy() for v in self.model.trainable_variables])
            return metrics
        pretrain._Run.train = train_and_keep_weights
        config = PretrainConfig(**run["config"])
        metrics = pretrain.train_and_evaluate(config, run["workdir"], Runtime.for_machine())
        print("METRICS", json.dumps(metrics))
    """
)


def _start(runs, outputs, env=None, logical_cpus=False):
    """The child process for `runs` (config, workdir, weights path), forked from the tests'
    command server (`tests.commands`); its stdout and stderr (absl logs) go to files in the
    directory `outputs`."""
    runs = [
        {"config": config.__dict__, "workdir": workdir, "weights": weights}
        for config, workdir, weights in runs
    ]
    args = [sys.executable, "-c", _CHILD, json.dumps(runs)]
    if logical_cpus:
        args.append("--logical-cpus")
    os.makedirs(outputs, exist_ok=True)
    return commands.start(args, str(outputs), env=env, preloaded=True)


def _finish(process, outputs, timeout=240) -> list[dict]:
    """The metrics of each run of the child, once it ends."""
    result = commands.finished(process, str(outputs), timeout)
    assert result.returncode == 0, result.stderr[-4000:]
    lines = [line for line in result.stdout.splitlines() if line.startswith("METRICS ")]
    return [json.loads(line[len("METRICS ") :]) for line in lines]


def _weights(path):
    with np.load(path) as data:
        return [data[key] for key in sorted(data.files, key=lambda k: int(k.split("_")[1]))]


def _free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _start_two_workers(config, workdir, tmp_path):
    """Two MultiWorkerMirroredStrategy workers on 127.0.0.1; their processes and output dirs.

    Worker i saves its final weights to tmp_path/worker{i}.npz and logs to worker{i}/stderr.
    """
    cluster = {"worker": [f"127.0.0.1:{port}" for port in _free_ports(2)]}
    workers, outputs = [], []
    for index in range(2):
        env = dict(os.environ)
        env["TF_CONFIG"] = json.dumps(
            {"cluster": cluster, "task": {"type": "worker", "index": index}}
        )
        outputs.append(tmp_path / f"worker{index}")
        weights = str(tmp_path / f"worker{index}.npz")
        workers.append(_start([(config, workdir, weights)], outputs[-1], env=env))
    return workers, outputs


@pytest.mark.slow  # One process, TensorFlow started once, two short pretraining runs.
def test_mirrored_over_two_replicas_equals_one_device(base_config, tmp_path):
    config = base_config.replace(num_train_steps=4, save_checkpoints_steps=4, log_every_steps=4)
    # The child splits the CPU in 2 logical devices; one_device uses the first.
    runs = [
        (config, str(tmp_path / "one"), str(tmp_path / "one.npz")),
        (config.replace(strategy="mirrored"), str(tmp_path / "mirrored"), str(tmp_path / "m.npz")),
    ]
    outputs = tmp_path / "child"
    one_metrics, mirrored_metrics = _finish(_start(runs, outputs, logical_cpus=True), outputs)
    for name in ("train/masked_lm_loss", "train/sentence_order_loss", "train/masked_lm_accuracy"):
        np.testing.assert_allclose(mirrored_metrics[name], one_metrics[name], rtol=1e-5)
    one_weights = _weights(tmp_path / "one.npz")
    for expected, actual in zip(one_weights, _weights(tmp_path / "m.npz"), strict=True):
        np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-6)


@pytest.mark.slow  # Two worker processes, each starting TensorFlow.
def test_multi_worker_mirrored_workers_agree_and_stop_together_on_sigterm(base_config, tmp_path):
    config = base_config.replace(
        strategy="multi_worker_mirrored",
        num_train_steps=100_000,
        save_checkpoints_steps=100_000,
        log_every_steps=1,
    )
    workdir = str(tmp_path / "work")
    workers, outputs = _start_two_workers(config, workdir, tmp_path)
    log = outputs[1] / "stderr"
    deadline = time.monotonic() + 180
    while "step 2/" not in log.read_text() and time.monotonic() < deadline:
        assert workers[1].poll() is None, log.read_text()[-4000:]
        time.sleep(0.2)
    workers[1].send_signal(signal.SIGTERM)  # only the non-chief worker is preempted
    metrics = [_finish(worker, out)[0] for worker, out in zip(workers, outputs, strict=True)]
    # Both stop at the same step, with the same losses and weights.
    assert metrics[0]["stopped_by_signal"] == metrics[1]["stopped_by_signal"] == 1.0
    assert 2 <= metrics[0]["step"] == metrics[1]["step"] < 100_000
    assert metrics[0]["train/masked_lm_loss"] == metrics[1]["train/masked_lm_loss"]
    for chief, other in zip(
        _weights(tmp_path / "worker0.npz"), _weights(tmp_path / "worker1.npz"), strict=True
    ):
        np.testing.assert_array_equal(chief, other)
    # Only the chief's checkpoint stays; the other worker's scratch copy is gone.
    step = int(metrics[0]["step"])
    assert tf.train.latest_checkpoint(workdir).endswith(f"ckpt-{step}")
    assert not [name for name in os.listdir(workdir) if name.startswith(".worker-")]
