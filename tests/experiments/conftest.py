"""A two-cell experiment at the tiny scale, run once for the tests that read its outputs."""

from __future__ import annotations

import pytest

from albert_tf.experiments.downstream import DownstreamOptions
from albert_tf.experiments.records import ExperimentInputs
from albert_tf.experiments.runner import run_experiment
from albert_tf.experiments.scale import SCALES
from albert_tf.runtime import Runtime
from tests.conftest import SAMPLE_TEXT, SHARED_DATA

# 60 steps with a checkpoint every 10: the kill test stops a run at its first checkpoint, well
# before its last.
TEST_SCALE = SCALES["tiny"].replace(num_train_steps=60)
TWO_CELLS = ("nsp", "sop")
SST2 = SHARED_DATA / "glue" / "SST-2"


@pytest.fixture(scope="session")
def downstream(tmp_path_factory) -> DownstreamOptions:
    """The optional downstream column: SST-2's first 64 training and 96 dev sentences, one
    epoch (the column's code path, at a test's cost)."""
    data_dir = tmp_path_factory.mktemp("sst2")
    for name, rows in (("train.tsv", 64), ("dev.tsv", 96)):
        lines = (SST2 / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (data_dir / name).write_text("".join(lines[: rows + 1]), encoding="utf-8")
    return DownstreamOptions("sst-2", str(data_dir), max_train_examples=64, num_train_epochs=1.0)


def experiment_inputs(spm_model_file: str) -> ExperimentInputs:
    return ExperimentInputs(str(SAMPLE_TEXT), str(SAMPLE_TEXT), spm_model_file)


@pytest.fixture(scope="session")
def two_cell_experiment(tmp_path_factory, tiny_model_file, downstream):
    """(experiment_dir, first ExperimentResult) of sentence_objective's nsp and sop cells."""
    experiment_dir = str(tmp_path_factory.mktemp("experiment") / "exp")
    result = run_experiment(
        "sentence_objective",
        experiment_dir,
        experiment_inputs(tiny_model_file),
        TEST_SCALE,
        only_cells=TWO_CELLS,
        downstream=downstream,
        runtime=Runtime.for_machine(),
    )
    return experiment_dir, result
