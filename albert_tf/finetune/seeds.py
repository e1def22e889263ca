"""`run_seeds(config, output_dir, seeds, runtime)`: one fine-tuning run per seed, and their spread.

Fine-tuning scores move by a point or more from one seed to the next on small dev sets (RTE,
MRPC), so a single run says little. Each seed's run is a normal complete run
(`run_finetuning` with `config.seed` replaced) in `output_dir/seed_<seed>`: its model, scores,
predictions and export are those of a single run, so everything that reads one reads it.
`output_dir/seeds.json`, written once every run has finished, holds each run's results and the
mean and sample standard deviation of every float figure all runs report (the dev scores,
training loss and seconds).

Example:
    >>> summary = seeds_summary({1: {"dev/accuracy": 0.75, "train_steps": 9},
    ...                          2: {"dev/accuracy": 0.25, "train_steps": 9}})
    >>> summary["mean"], summary["std"]
    ({'dev/accuracy': 0.5}, {'dev/accuracy': 0.3535533905932738})
    >>> print(summary_table(summary))
    dev/accuracy  0.5000 ± 0.3536  (seeds 1, 2: 0.7500, 0.2500)
"""

from __future__ import annotations

import json
import logging
import os
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.finetune.driver import run_finetuning
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.runtime.runtime import Runtime

SEEDS_FILE = "seeds.json"


def seed_dir(output_dir: str, seed: int) -> str:
    """Where the run of `seed` goes."""
    return os.path.join(output_dir, f"seed_{seed}")


def parse_seeds(values: Sequence[str], where: str = "--seeds") -> list[int]:
    """Distinct integer seeds of a flag's values (`UserError` naming the bad one)."""
    seeds = []
    for value in values:
        try:
            seed = int(value)
        except ValueError:
            raise UserError(
                f"seed {value!r} is not an integer", where=where, fix="pass e.g. --seeds=1,2,3"
            ) from None
        if seed in seeds:
            raise UserError(f"seed {seed} is given twice", where=where, fix="list each seed once")
        seeds.append(seed)
    return seeds


def run_seeds(
    config: FinetuneConfig,
    output_dir: str,
    seeds: Sequence[int],
    runtime: Runtime,
) -> dict[str, Any]:
    """Runs `config` once per seed (in order), each in `runtime`'s speed-only forms, and writes
    `seeds.json`.

    Returns:
        `seeds_summary` of the runs: `seeds`, `runs` (each run's results by seed), `mean` and
        `std` per float figure.

    Raises:
        UserError: no seeds; whatever `run_finetuning` raises (a bad input fails the first run,
            before it writes anything).
    """
    if not seeds:
        raise UserError("no seeds to run", where="--seeds", fix="pass e.g. --seeds=1,2,3")
    runs: dict[int, dict[str, Any]] = {}
    for number, seed in enumerate(seeds, 1):
        directory = seed_dir(output_dir, seed)
        runs[seed] = run_finetuning(config.replace(seed=seed), directory, runtime)
        # Logged after the run: a bad input's error stays the only line.
        logging.info("Seed %d (%d of %d) finished: %s", seed, number, len(seeds), directory)
    summary = seeds_summary(runs)
    text = json.dumps(summary, indent=2, default=str)
    atomic_write_text(os.path.join(output_dir, SEEDS_FILE), text)
    return summary


def seeds_summary(runs: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
    """Each run's results and the mean and sample standard deviation (0 for one run) of every
    float figure that all `runs` report, in the first run's order."""
    results = list(runs.values())
    names = [
        name
        for name, value in results[0].items()
        if isinstance(value, float) and all(isinstance(r.get(name), float) for r in results)
    ]
    mean, std = {}, {}
    for name in names:
        values = [run[name] for run in results]
        mean[name] = statistics.fmean(values)
        std[name] = statistics.stdev(values) if len(values) > 1 else 0.0
    return {
        "seeds": list(runs),
        "runs": {str(seed): dict(run) for seed, run in runs.items()},
        "mean": mean,
        "std": std,
    }


def summary_table(summary: Mapping[str, Any]) -> str:
    """One line per figure: `name  mean ± std  (seeds ...: each run's value)`."""
    seeds = ", ".join(str(seed) for seed in summary["seeds"])
    width = max((len(name) for name in summary["mean"]), default=0)
    lines = []
    for name, mean in summary["mean"].items():
        values = ", ".join(f"{run[name]:.4f}" for run in summary["runs"].values())
        lines.append(
            f"{name:<{width}}  {mean:.4f} ± {summary['std'][name]:.4f}  (seeds {seeds}: {values})"
        )
    return "\n".join(lines)
