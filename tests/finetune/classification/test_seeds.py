"""`run_seeds`: one complete classification run per seed and their mean and deviation."""

from __future__ import annotations

import json
import os
import statistics

import pytest

from albert_tf.errors import UserError
from albert_tf.finetune.seeds import SEEDS_FILE, parse_seeds, run_seeds
from albert_tf.runtime import Runtime


@pytest.mark.slow  # Two tiny fine-tuning runs.
def test_each_seed_is_a_complete_run_and_the_summary_matches(tmp_path, tiny_run_config):
    config = tiny_run_config.replace(num_train_epochs=1, do_predict=False)
    summary = run_seeds(config, str(tmp_path), [7, 8], runtime=Runtime.for_machine())

    runs = summary["runs"]
    assert summary["seeds"] == [7, 8] and list(runs) == ["7", "8"]
    for seed in (7, 8):
        directory = tmp_path / f"seed_{seed}"
        for name in ("model.keras", "task.json", "eval_results.json", "finetune_config.json"):
            assert (directory / name).is_file(), (seed, name)
        assert json.loads((directory / "finetune_config.json").read_text())["seed"] == seed
        scores = json.loads((directory / "eval_results.json").read_text())
        assert scores["dev/accuracy"] == runs[str(seed)]["dev/accuracy"]
    # The seed reaches training: other initial weights and data order, another loss.
    assert runs["7"]["train/loss"] != runs["8"]["train/loss"]
    for name in ("dev/accuracy", "train/loss", "train_seconds"):
        values = [runs[seed][name] for seed in runs]
        assert summary["mean"][name] == pytest.approx(statistics.fmean(values))
        assert summary["std"][name] == pytest.approx(statistics.stdev(values))
    assert "train_steps" not in summary["mean"]  # Counts are not figures to average.
    assert json.loads((tmp_path / SEEDS_FILE).read_text()) == summary
    assert sorted(os.listdir(tmp_path)) == ["seed_7", "seed_8", SEEDS_FILE]


def test_seeds_must_be_distinct_integers():
    assert parse_seeds(["3", " 1"]) == [3, 1]
    with pytest.raises(UserError, match="'x' is not an integer"):
        parse_seeds(["1", "x"])
    with pytest.raises(UserError, match="seed 2 is given twice"):
        parse_seeds(["2", "2"])
