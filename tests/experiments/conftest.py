"""A two-cell experiment at the tiny scale, run once for the tests that read its outputs."""

from __future__ import annotations

import pytest

from albert_tf.experiments.downstream import DownstreamOptions
from albert_tf.experiments.records import ExperimentInputs
from albert_tf.experiments.runner import run_experiment
from albert_tf.experiments.scale import SCALES
from tests.conftest import SAMPLE_TEXT, SHARED_DATA

# 120 steps with a checkpoint every 10: long enough to be killed mid-training.
TEST_SCALE = SCALES["tiny"].replace(num_train_steps=120)
TWO_CELLS = ("nsp", "sop")
# The optional downstream column: SST-2, a slice of its training set, one epoch.
DOWNSTREAM = DownstreamOptions(
    "sst-2", str(SHARED_DATA / "glue" / "SST-2"), max_train_examples=64, num_train_epochs=1.0
)


def experiment_inputs(spm_model_file: str) -> ExperimentInputs:
    return ExperimentInputs(str(SAMPLE_TEXT), str(SAMPLE_TEXT), spm_model_file)


@pytest.fixture(scope="session")
def two_cell_experiment(tmp_path_factory, tiny_model_file):
    """(experiment_dir, first ExperimentResult) of sentence_objective's nsp and sop cells."""
    experiment_dir = str(tmp_path_factory.mktemp("experiment") / "exp")
    result = run_experiment(
        "sentence_objective",
        experiment_dir,
        experiment_inputs(tiny_model_file),
        TEST_SCALE,
        only_cells=TWO_CELLS,
        downstream=DOWNSTREAM,
    )
    return experiment_dir, result
