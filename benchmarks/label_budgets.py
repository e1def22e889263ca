"""Label budgets: fine-tuning scores against the number of labeled training examples.

For each budget (the first N training examples) and each encoder (random init, pretrained, ...),
runs one `albert-tf` fine-tuning command with `--seeds`, and the task's classic baseline
(benchmarks/classic_baselines.py) on the same N examples; writes the table (mean ± sample
standard deviation over the seeds) and a plot: where pretraining pays, and by how much.

A finished run (its `seeds.json` exists) is read, not run again, so a killed benchmark resumes
where it stopped. Flags after `--` go to every fine-tuning command unchanged. After a change to
the baseline, `--rescore_baseline` scores it anew and redraws the table and plot from the
encoders' figures in `label_budgets.json`, fine-tuning nothing (their runs may be gone).

Example (docs/tagging.md, section "Label budgets"):
    python benchmarks/label_budgets.py --command=tag --baseline=peopledaily \\
        --budgets=500,2000,8000 --epochs=500:16,2000:4,8000:2 --seeds=1,2,3 --metric=dev/f1 \\
        --encoder=random=--albert_config_file=zh/char_h128.json \\
        --encoder=pretrained=--init_checkpoint=zh/pretrain_char/encoder.keras \\
        --output_dir=zh/budgets -- --spm_model_file=zh/zhc5k.model \\
        --data_dir=../shared/data/chinese/peopledaily_ner --character_level \\
        --max_seq_length=64 --learning_rate=1e-3

Writes `OUTPUT_DIR/label_budgets.md` (the table), `.json` (every figure) and `.png` (the plot);
each encoder's runs in `OUTPUT_DIR/<encoder>/<budget>/seed_<seed>`.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence

import classic_baselines

from albert_tf.atomic_files import atomic_output_file
from albert_tf.experiments.plots import plot_label_budgets

COMMANDS = ("classify", "tag", "choice")


def _pairs(values: Sequence[str], separator: str, flag: str) -> dict[str, str]:
    """`KEY<separator>VALUE` strings as a dict, in order (`--encoder`, `--epochs`)."""
    pairs = {}
    for value in values:
        key, sep, rest = value.partition(separator)
        if not sep or not key or not rest:
            raise ValueError(f"{flag}: {value!r} is not KEY{separator}VALUE")
        pairs[key] = rest
    return pairs


def finetune(args: argparse.Namespace, encoder: str, budget: int) -> dict:
    """One encoder at one budget over every seed (or the finished run's `seeds.json`)."""
    directory = os.path.join(args.output_dir, encoder, str(budget))
    summary_file = os.path.join(directory, "seeds.json")
    if not os.path.exists(summary_file):
        command = [
            "albert-tf",
            args.command,
            *shlex.split(args.encoders[encoder]),
            *args.common,
            f"--max_train_examples={budget}",
            f"--seeds={args.seeds}",
            "--do_train",
            "--do_eval",
            f"--output_dir={directory}",
        ]
        if budget in args.epochs_for:
            command.append(f"--num_train_epochs={args.epochs_for[budget]}")
        print("+", shlex.join(command), file=sys.stderr, flush=True)
        subprocess.run(command, check=True)
    with open(summary_file, encoding="utf-8") as f:
        return json.load(f)


def previous_encoders(args: argparse.Namespace) -> dict:
    """Each `--encoder`'s figures at each budget from `OUTPUT_DIR/label_budgets.json`."""
    path = os.path.join(args.output_dir, "label_budgets.json")
    with open(path, encoding="utf-8") as f:
        previous = json.load(f)["encoders"]
    missing = [
        f"{name} at {budget}"
        for name in args.encoders
        for budget in args.budgets
        if str(budget) not in previous.get(name, {})
    ]
    if missing:
        raise SystemExit(f"--rescore_baseline: {path} has no figures for {', '.join(missing)}")
    return {name: {str(b): previous[name][str(b)] for b in args.budgets} for name in args.encoders}


def baseline_scores(
    task_name: str, data_dir: str, budgets: Sequence[int]
) -> tuple[str, dict[int, float]]:
    """The classic baseline's name and its headline score (a fraction, as fine-tuning reports)
    per budget."""
    task = next(task for task in classic_baselines.TASKS if task.name == task_name)
    name, scores = "", {}
    for budget in budgets:
        row = task.run(data_dir, budget)[0]
        name, scores[budget] = row.baseline, row.score / 100
        print(f"baseline {row.baseline}, {budget}: {row.score:.1f}", file=sys.stderr)
    return name, scores


def markdown_table(results: dict, metric: str) -> str:
    encoders = list(results["encoders"])
    header = ["training examples", *encoders]
    if results["baseline"]:
        header.append(results["baseline_name"])
    lines = ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
    for budget in results["budgets"]:
        cells = [f"{budget:,}"]
        for encoder in encoders:
            summary = results["encoders"][encoder][str(budget)]
            values = ", ".join(f"{run[metric]:.3f}" for run in summary["runs"].values())
            cells.append(f"{summary['mean'][metric]:.3f} ± {summary['std'][metric]:.3f} ({values})")
        if results["baseline"]:
            cells.append(f"{results['baseline'][str(budget)]:.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    argv = list(sys.argv[1:] if argv is None else argv)
    common = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--command", choices=COMMANDS, required=True)
    parser.add_argument("--budgets", required=True, help="Comma-separated training sizes.")
    parser.add_argument("--seeds", default="1,2,3", help="Passed to every run as --seeds.")
    parser.add_argument("--epochs", default="", help="BUDGET:EPOCHS,... (--num_train_epochs).")
    parser.add_argument("--metric", required=True, help="The figure to tabulate, e.g. dev/f1.")
    parser.add_argument(
        "--encoder",
        action="append",
        required=True,
        help="NAME=FLAGS, e.g. pretrained=--init_checkpoint=enc.keras (repeat per encoder).",
    )
    parser.add_argument(
        "--baseline",
        default="",
        help=f"classic_baselines.py task scored on the same examples "
        f"({', '.join(classic_baselines.TASK_NAMES)}); empty: none.",
    )
    parser.add_argument("--data_dir", default=classic_baselines.DATA_DIR, help="For --baseline.")
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--title", default="", help="The plot's title.")
    parser.add_argument(
        "--rescore_baseline",
        action="store_true",
        help="Fine-tune nothing: the encoders' figures from OUTPUT_DIR/label_budgets.json, the "
        "baseline scored anew.",
    )
    args = parser.parse_args(argv)
    args.common = common
    try:
        args.encoders = _pairs(args.encoder, "=", "--encoder")
        epochs = _pairs(filter(None, args.epochs.split(",")), ":", "--epochs")
    except ValueError as error:
        parser.error(str(error))
    try:
        args.budgets = [int(budget) for budget in args.budgets.split(",")]
        args.epochs_for = {int(budget): count for budget, count in epochs.items()}
    except ValueError:
        parser.error(f"--budgets={args.budgets!r} / --epochs={args.epochs!r}: sizes are integers")
    if set(args.epochs_for) - set(args.budgets):
        parser.error(f"--epochs: {args.epochs!r} names a size that --budgets does not list")
    if args.baseline and args.baseline not in classic_baselines.TASK_NAMES:
        parser.error(f"--baseline: unknown {args.baseline}")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    results: dict = {"metric": args.metric, "budgets": args.budgets, "encoders": {}}
    if args.rescore_baseline:
        results["encoders"] = previous_encoders(args)
    else:
        for name in args.encoders:
            results["encoders"][name] = {str(b): finetune(args, name, b) for b in args.budgets}
    baseline_name, baseline = (
        baseline_scores(args.baseline, args.data_dir, args.budgets) if args.baseline else ("", {})
    )
    results["baseline_name"] = baseline_name
    results["baseline"] = {str(budget): score for budget, score in baseline.items()}
    table = markdown_table(results, args.metric)
    print(table)
    stem = os.path.join(args.output_dir, "label_budgets")
    for suffix, text in ((".json", json.dumps(results, indent=2)), (".md", table + "\n")):
        with atomic_output_file(stem + suffix) as path, open(path, "w", encoding="utf-8") as f:
            f.write(text)
    curves = {
        name: [
            (budget, runs[str(budget)]["mean"][args.metric], runs[str(budget)]["std"][args.metric])
            for budget in args.budgets
        ]
        for name, runs in results["encoders"].items()
    }
    if baseline:
        curves[baseline_name] = [(budget, score, 0.0) for budget, score in baseline.items()]
    plot_label_budgets(curves, args.metric, args.title or args.output_dir, stem + ".png")


if __name__ == "__main__":
    main()
