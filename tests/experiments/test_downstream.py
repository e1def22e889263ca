"""`finetune_cell`: the downstream options reach `run_classifier` as ClassificationConfig fields,
with the experiment's runtime."""

from __future__ import annotations

import pytest

from albert_tf.experiments import downstream
from albert_tf.experiments.downstream import DownstreamOptions, finetune_cell
from albert_tf.runtime import Runtime


def test_finetune_cell_passes_every_option_and_reads_the_dev_accuracy(monkeypatch):
    seen = {}

    def run_classifier(config, output_dir, runtime):
        seen.update(config=config, output_dir=output_dir, runtime=runtime)
        return {"dev/accuracy": 0.75, "dev/examples": 100, "dev/loss": 0.5}

    monkeypatch.setattr(downstream, "run_classifier", run_classifier)
    options = DownstreamOptions(
        task="sst-2",
        data_dir="glue/SST-2",
        max_train_examples=64,
        num_train_epochs=1.5,
        learning_rate=3e-4,
        train_batch_size=8,
    )
    runtime = Runtime.plain()
    metrics = finetune_cell(options, "enc.keras", "spm.model", False, 32, 7, "out", runtime)

    config = seen["config"]
    assert (config.task, config.data_dir, config.max_train_examples) == ("sst-2", "glue/SST-2", 64)
    assert (config.num_train_epochs, config.learning_rate, config.train_batch_size) == (
        1.5,
        3e-4,
        8,
    )
    assert (config.init_checkpoint, config.spm_model_file, config.do_lower_case) == (
        "enc.keras",
        "spm.model",
        False,
    )
    assert (config.max_seq_length, config.seed, config.precision) == (32, 7, "float32")
    assert seen["output_dir"] == "out" and seen["runtime"] is runtime
    assert metrics["downstream_accuracy"] == 0.75
    assert metrics["downstream_examples"] == 100.0
    assert metrics["downstream_accuracy_se"] == pytest.approx((0.75 * 0.25 / 100) ** 0.5)
