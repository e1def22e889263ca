"""Distilled students beside their teacher: dev score, share of the teacher's score kept,
parameters, and CPU serving speed on ONNX Runtime and the SavedModel, side by side in one
process.

Each run (`name=DIR`, the teacher first: runs of `albert-tf classify`/`tag`/`choice`, of
`albert-tf distill`, and of `albert-tf distill --label_weight=1`, the same student trained on the
labels alone) is exported as its family's SavedModel (what `albert-tf export` writes, in this
machine's serving forms) and as float32 ONNX (`albert-tf export --format=onnx`). Both are fed the
same ids (the SavedModel's `serving_default`, ONNX Runtime's inputs), featurized once from the
lines of `--text_file` at the run's `max_seq_length`, so the figures compare the models, not the
tokenizers. Batch-1 latency (median over `--calls`) and batch-32 throughput (median over
`--rounds`) are timed in interleaved rounds (`timing.interleaved_seconds`): every path of every
run takes one step per round, so the load of other processes falls on all alike.

Example (docs/distillation.md):
    python benchmarks/bench_distillation.py --text_file=sst2_dev.txt --metric=dev/accuracy \
        teacher=sst2_teacher k2=sst2_k2 k2_labels=sst2_k2_labels
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile

import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the ops the SavedModels use)
from timing import interleaved_seconds, median_rates

from albert_tf.export.export_source import load_export_source
from albert_tf.export.finetuned_run import load_finetuned_model, read_task_file
from albert_tf.export.onnx.export import export_onnx
from albert_tf.export.onnx.runner import ort_session
from albert_tf.finetune.driver import export_finished_run
from albert_tf.runtime import Runtime
from albert_tf.tokenization.text_features import AlbertTextFeatures


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="name=DIR, the teacher first")
    parser.add_argument("--text_file", required=True, help="texts to featurize, one a line")
    parser.add_argument("--metric", default="dev/accuracy", help="eval_results.json's score")
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--calls", type=int, default=100, help="batch-1 calls per path")
    parser.add_argument("--rounds", type=int, default=10, help="batch-32 calls per path")
    parser.add_argument("--workdir", default="", help="where the exports go (default: a temp dir)")
    parser.add_argument("--json", default="", help="also write the table's figures here")
    return parser.parse_args()


def exports(run_dir: str, workdir: str) -> dict[str, str]:
    """The run's SavedModel and float32 ONNX file (exported once into `workdir`)."""
    saved_model = os.path.join(workdir, "saved_model")
    if not os.path.isdir(saved_model):
        export_finished_run(run_dir, saved_model, runtime=Runtime.for_machine())
    onnx_dir = os.path.join(workdir, "onnx")
    if not os.path.isdir(onnx_dir):
        export_onnx(onnx_dir, load_export_source(run_dir), ["float32"])
    onnx_file = next(name for name in os.listdir(onnx_dir) if name.endswith("_float32.onnx"))
    return {"saved_model": saved_model, "onnx": os.path.join(onnx_dir, onnx_file)}


def runners(files: dict[str, str]) -> dict[str, object]:
    """`features -> logits` of the SavedModel (`serving_default`) and of ONNX Runtime."""
    serve = tf.saved_model.load(files["saved_model"]).signatures["serving_default"]
    session = ort_session(files["onnx"])
    names = [output.name for output in session.get_outputs()]
    output = "logits" if "logits" in names else names[0]
    return {
        "saved_model": lambda f: serve(**{k: tf.constant(v) for k, v in f.items()})["logits"],
        "onnx": lambda f: session.run([output], f)[0],
    }


def describe(name: str, run_dir: str, metric: str) -> dict:
    """A run's score, parameters and (students) the distillation settings."""
    scores = json.load(open(os.path.join(run_dir, "eval_results.json"), encoding="utf-8"))
    model = load_finetuned_model(run_dir)
    config = model.encoder.config
    row = {
        "run": name,
        "score": scores[metric],
        "parameters": model.count_params(),
        "shape": f"L{config.num_hidden_layers} H{config.hidden_size} I{config.intermediate_size}",
    }
    record = os.path.join(run_dir, "distillation.json")
    if os.path.isfile(record):
        values = json.load(open(record, encoding="utf-8"))
        row["labels"] = "labels only" if values["label_weight"] == 1.0 else "distilled"
    return row


def main() -> None:
    args = _parse_args()
    runs = dict(item.split("=", 1) for item in args.runs)
    workdir = args.workdir or tempfile.mkdtemp(prefix="bench_distillation_")
    texts = [line.strip() for line in open(args.text_file, encoding="utf-8") if line.strip()]
    texts = (texts * args.batch_size)[: max(args.batch_size, len(texts))]
    rows = [describe(name, run_dir, args.metric) for name, run_dir in runs.items()]
    paths: dict[str, object] = {}
    inputs: dict[str, tuple[dict, dict]] = {}
    for name, run_dir in runs.items():
        task = read_task_file(run_dir)
        featurize = AlbertTextFeatures(
            os.path.join(run_dir, "spm.model"), task["max_seq_length"], task["do_lower_case"]
        )
        features = {k: v.numpy() for k, v in featurize(tf.constant(texts)).items()}
        one = {k: v[:1] for k, v in features.items()}
        many = {k: v[: args.batch_size] for k, v in features.items()}
        for path, run in runners(exports(run_dir, os.path.join(workdir, name))).items():
            paths[f"{name} {path}"] = run
            inputs[f"{name} {path}"] = (one, many)
    latency = interleaved_seconds(
        {key: (lambda r=run, x=inputs[key][0]: r(x)) for key, run in paths.items()}, 5, args.calls
    )
    seconds = interleaved_seconds(
        {key: (lambda r=run, x=inputs[key][1]: r(x)) for key, run in paths.items()}, 2, args.rounds
    )
    throughput = median_rates(seconds, args.batch_size)
    teacher = rows[0]
    for row in rows:
        row["kept"] = row["score"] / teacher["score"]
        for path in ("onnx", "saved_model"):
            key = f"{row['run']} {path}"
            row[f"{path}_ms"] = 1000 * statistics.median(latency[key])
            row[f"{path}_per_s"] = throughput[key]
        for path in ("onnx", "saved_model"):
            row[f"{path}_speedup"] = teacher[f"{path}_ms"] / row[f"{path}_ms"]
    _report(rows, args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=2)


def _report(rows: list[dict], args: argparse.Namespace) -> None:
    print(
        f"| run | trained on | shape | parameters | {args.metric} | kept | ORT batch-1 ms | "
        f"ORT batch-{args.batch_size}/s | SavedModel batch-1 ms | "
        f"SavedModel batch-{args.batch_size}/s | batch-1 speed-up ORT / SavedModel |"
    )
    print("|" + " --- |" * 11)
    for row in rows:
        print(
            f"| {row['run']} | {row.get('labels', 'teacher')} | {row['shape']} | "
            f"{row['parameters']:,} | {row['score']:.3f} | {100 * row['kept']:.1f}% | "
            f"{row['onnx_ms']:.2f} | {row['onnx_per_s']:.0f} | {row['saved_model_ms']:.2f} | "
            f"{row['saved_model_per_s']:.0f} | {row['onnx_speedup']:.2f}x / "
            f"{row['saved_model_speedup']:.2f}x |"
        )


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
