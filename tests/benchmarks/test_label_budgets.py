"""benchmarks/label_budgets.py runs one fine-tuning command per encoder and budget, reads
finished runs instead of repeating them, and writes the table, JSON and plot (a stand-in
`albert-tf` on PATH records each command and writes its `seeds.json`; no TensorFlow)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

pytest.importorskip("matplotlib")

# Scores a run from its flags: more examples, the pretrained encoder, a later seed: higher.
FAKE_ALBERT_TF = """#!{python}
import json, os, sys
flags = dict(a[2:].partition("=")[::2] for a in sys.argv[2:] if a.startswith("--"))
with open(os.environ["CALLS"], "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
n = int(flags["max_train_examples"])
gain = 0.2 if "init_checkpoint" in flags else 0.0
runs = {{s: {{"dev/f1": n / 1000 + gain + int(s) / 100}} for s in flags["seeds"].split(",")}}
mean = sum(r["dev/f1"] for r in runs.values()) / len(runs)
os.makedirs(flags["output_dir"])
with open(os.path.join(flags["output_dir"], "seeds.json"), "w") as f:
    json.dump({{"runs": runs, "mean": {{"dev/f1": mean}}, "std": {{"dev/f1": 0.01}}}}, f)
"""


def _run(tmp_path: pathlib.Path, *extra: str, check: bool = True) -> subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "albert-tf"
    fake.write_text(FAKE_ALBERT_TF.format(python=sys.executable), encoding="utf-8")
    fake.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "CALLS": str(tmp_path / "calls.jsonl"),
        "PYTHONPATH": str(REPO_ROOT),
    }
    command = [
        sys.executable,
        str(REPO_ROOT / "benchmarks/label_budgets.py"),
        "--command=tag",
        "--budgets=100,400",
        "--epochs=100:8",
        "--seeds=1,2",
        "--metric=dev/f1",
        "--encoder=random=--albert_config_file=c.json",
        "--encoder=pretrained=--init_checkpoint=enc.keras --learning_rate=3e-4",
        f"--output_dir={tmp_path / 'out'}",
        *extra,
        "--",
        "--character_level",
    ]
    return subprocess.run(command, env=env, capture_output=True, text=True, check=check)


def test_runs_each_encoder_and_budget_once_and_writes_table_and_plot(tmp_path):
    _run(tmp_path)
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert [(c[0], c[1]) for c in calls] == [("tag", "--albert_config_file=c.json")] * 2 + [
        ("tag", "--init_checkpoint=enc.keras")
    ] * 2
    assert "--learning_rate=3e-4" in calls[2] and "--character_level" in calls[2]
    assert "--num_train_epochs=8" in calls[0] and "--max_train_examples=100" in calls[0]
    assert not any(arg.startswith("--num_train_epochs") for arg in calls[1])

    out = tmp_path / "out"
    results = json.loads((out / "label_budgets.json").read_text())
    assert results["encoders"]["pretrained"]["100"]["mean"]["dev/f1"] == pytest.approx(0.315)
    table = (out / "label_budgets.md").read_text()
    assert "| 400 | 0.415 ± 0.010 (0.410, 0.420) | 0.615 ± 0.010 (0.610, 0.620) |" in table
    assert (out / "label_budgets.png").read_bytes()[:4] == b"\x89PNG"

    # Rerun: every run is finished, so nothing is fine-tuned again.
    _run(tmp_path)
    assert len((tmp_path / "calls.jsonl").read_text().splitlines()) == 4

    # A changed baseline: the table again from the JSON, though the runs are gone.
    for name in ("random", "pretrained"):
        shutil.rmtree(out / name)
    (out / "label_budgets.md").unlink()
    _run(tmp_path, "--rescore_baseline")
    assert len((tmp_path / "calls.jsonl").read_text().splitlines()) == 4
    assert (out / "label_budgets.md").read_text() == table
    failed = _run(tmp_path, "--rescore_baseline", "--encoder=peer=--init_checkpoint=p", check=False)
    assert failed.returncode != 0 and "no figures for peer at 100, peer at 400" in failed.stderr
