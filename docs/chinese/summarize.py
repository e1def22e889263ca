"""Tabulates the fine-tuning runs of docs/chinese/run.sh: mean, spread and every run.

    python docs/chinese/summarize.py WORK_DIR

Reads WORK_DIR/finetune/<pretraining seed>/<encoder>/<task>_<seed>/eval_results.json and the
experiments' results.csv (MLM accuracy of each pretrained cell).
"""

from __future__ import annotations

import csv
import glob
import json
import os
import statistics
import sys

TASKS = {
    "chnsenticorp": ("ChnSentiCorp dev accuracy", "dev/accuracy", 100.0),
    "peopledaily": ("People's Daily dev F1", "dev/f1", 100.0),
}
ENCODERS = {
    "random": "random weights",
    "char": "pretrained, character masking",
    "wwm": "pretrained, whole-word masking (jieba)",
}


def runs(work_dir: str) -> dict[tuple[str, str], list[tuple[str, str, float]]]:
    """(task, encoder) -> [(pretraining seed, fine-tuning seed, score)]."""
    found: dict[tuple[str, str], list] = {}
    pattern = os.path.join(work_dir, "finetune", "*", "*", "*", "eval_results.json")
    for path in sorted(glob.glob(pattern)):
        run_dir = os.path.dirname(path)
        task, seed = os.path.basename(run_dir).rsplit("_", 1)
        encoder = os.path.basename(os.path.dirname(run_dir))
        pretrain_seed = os.path.basename(os.path.dirname(os.path.dirname(run_dir)))
        _, key, scale = TASKS[task]
        with open(path, encoding="utf-8") as handle:
            score = scale * float(json.load(handle)[key])
        found.setdefault((task, encoder), []).append((pretrain_seed, seed, score))
    return found


def main(work_dir: str) -> None:
    found = runs(work_dir)
    print("| task | encoder | mean | std | min - max | runs (pretraining seed/seed: score) |")
    print("|---|---|---|---|---|---|")
    for task, (title, _, _) in TASKS.items():
        for encoder, name in ENCODERS.items():
            scores = found.get((task, encoder), [])
            if not scores:
                continue
            values = [score for _, _, score in scores]
            spread = statistics.stdev(values) if len(values) > 1 else float("nan")
            each = ", ".join(f"{p}/{s}: {v:.1f}" for p, s, v in scores)
            print(
                f"| {title} | {name} | {statistics.mean(values):.1f} | {spread:.1f} | "
                f"{min(values):.1f} - {max(values):.1f} | {each} |"
            )
    print()
    print("| pretraining seed | cell | MLM accuracy (char-masked eval records) | SOP head |")
    print("|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(work_dir, "experiment_*", "results.csv"))):
        seed = os.path.basename(os.path.dirname(path)).split("_", 1)[1]
        with open(path, encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                mlm, sop = float(row["mlm_accuracy"]), float(row["sop_head_accuracy"])
                print(f"| {seed} | {row['cell']} | {100 * mlm:.1f} | {100 * sop:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
