"""The library function of scripts/analyze_layers.py, on the two-cell experiment's encoders
(the script's bad inputs: tests/test_bad_input_matrix.py)."""

from __future__ import annotations

import csv
import os

import pytest

from albert_tf.errors import UserError
from albert_tf.experiments.layer_report import analyze_encoder_files
from albert_tf.experiments.records import records_pattern
from tests.experiments.conftest import TEST_SCALE, TWO_CELLS


@pytest.mark.slow  # Reads the two-cell experiment.
def test_analyze_encoder_files_writes_csv_and_png(two_cell_experiment, tmp_path):
    experiment_dir, _ = two_cell_experiment
    paths = [os.path.join(experiment_dir, "cells", cell, "pretrain") for cell in TWO_CELLS]
    output_dir = str(tmp_path / "layers")
    models = analyze_encoder_files(
        paths,
        ["first", "second"],
        records_pattern(experiment_dir, "sop", "eval"),
        TEST_SCALE.max_seq_length,
        TEST_SCALE.max_predictions_per_seq,
        num_records=16,
        output_dir=output_dir,
    )
    assert list(models) == ["first", "second"]
    with open(os.path.join(output_dir, "layer_transitions.csv"), newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["model"], r["layer"]) for r in rows] == [
        (name, str(layer))
        for name in ("first", "second")
        for layer in range(1, TEST_SCALE.num_hidden_layers + 1)
    ]
    assert os.path.getsize(os.path.join(output_dir, "layer_transitions.png")) > 10_000
    # The experiment's own analysis of the same cell used more records: same layer count.
    experiment_rows = list(
        csv.DictReader(open(os.path.join(experiment_dir, "layer_transitions.csv")))
    )
    assert len(experiment_rows) == len(rows)


def test_names_must_match_encoders(tmp_path):
    with pytest.raises(UserError, match="names"):
        analyze_encoder_files(["a", "b"], ["one"], "x", 32, 5, 16, str(tmp_path))
