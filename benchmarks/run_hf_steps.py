"""Hugging Face PyTorch training steps of the settings `export_step_hlo.py` wrote, timed.

The peer a PyTorch user would pick, on the same device as `run_step_hlo.py`: per setting of
the manifest, `AlbertForPreTraining` (MLM + SOP) or `AlbertForSequenceClassification` of the
same shape, on the same batch, bf16 autocast, AdamW (PyTorch has no LAMB; its update is a
small share of a step), eager or `torch.compile` (`--compile`). Needs torch, transformers and
numpy only. Printed per setting: sequences/s, the model FLOPs rate (the manifest's yardstick:
Hugging Face's MLM head, computed at every position, is credited for the masked ones only) and
MFU against `--peak_tflops`.

Illustration (not run; on a GPU machine):
    python benchmarks/run_hf_steps.py --steps_dir=.steps --peak_tflops=989.4
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import transformers


def batch_tensors(entry: dict, values: Any, device: str) -> dict[str, torch.Tensor]:
    """The exported batch by name (`batch/<key>` parameters), as int64 tensors on `device`."""
    batch = {}
    for index, parameter in enumerate(entry["parameters"]):
        if parameter["name"].startswith("batch/"):
            key = parameter["name"].split("/")[-1]
            batch[key] = torch.from_numpy(np.asarray(values[f"p{index}"])).to(device)
    return batch


def pretraining_inputs(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """`AlbertForPreTraining`'s inputs: labels at the masked positions, -100 elsewhere."""
    ids = batch["input_ids"].long()
    labels = torch.full_like(ids, -100)
    labels.scatter_(1, batch["masked_lm_positions"].long(), batch["masked_lm_ids"].long())
    return {
        "input_ids": ids,
        "attention_mask": batch["input_mask"].long(),
        "token_type_ids": batch["segment_ids"].long(),
        "labels": labels,
        "sentence_order_label": batch["next_sentence_labels"].long().reshape(-1),
    }


def classification_inputs(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """`AlbertForSequenceClassification`'s inputs (the keys of albert_tf's classifier)."""
    return {
        "input_ids": batch["input_word_ids"].long(),
        "attention_mask": batch["input_mask"].long(),
        "token_type_ids": batch["input_type_ids"].long(),
        "labels": batch["1"].long(),  # `fit`'s (features, labels): the labels' path is "1"
    }


def hf_model(entry: dict) -> torch.nn.Module:
    """The setting's model, randomly initialized (dropout as the exported albert_tf steps)."""
    config = transformers.AlbertConfig(**entry["hf_config"])
    if entry["task"] == "pretraining":
        return transformers.AlbertForPreTraining(config)
    config.hidden_dropout_prob = config.attention_probs_dropout_prob = 0.0
    config.classifier_dropout_prob, config.num_labels = 0.1, 2
    return transformers.AlbertForSequenceClassification(config)


def training_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    forward: Callable[..., Any],
    inputs: dict[str, torch.Tensor],
    device: str,
    autocast: bool = True,
) -> Callable[[], torch.Tensor]:
    """`step() -> loss`: one update of `model` on `inputs` through `forward` (the model or its
    `torch.compile`), bf16 autocast on `device` when `autocast`, gradients clipped at norm 1."""

    def step() -> torch.Tensor:
        with torch.autocast(device, dtype=torch.bfloat16, enabled=autocast):
            loss = forward(**inputs).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    return step


def time_setting(entry: dict, values: Any, device: str, compiled: bool, iterations: int):
    """(median seconds per step over 3 runs of `iterations` steps, the first step's loss)."""
    torch.manual_seed(0)
    model = hf_model(entry).to(device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01, eps=1e-6)
    forward = torch.compile(model) if compiled else model
    batch = batch_tensors(entry, values, device)
    inputs = (pretraining_inputs if entry["task"] == "pretraining" else classification_inputs)(
        batch
    )
    step = training_step(model, optimizer, forward, inputs, device)
    first = float(step())
    for _ in range(2):
        step()
    runs = []
    for _ in range(3):
        _synchronize(device)
        start = time.perf_counter()
        for _ in range(iterations):
            step()
        _synchronize(device)
        runs.append((time.perf_counter() - start) / iterations)
    return statistics.median(runs), first


def _synchronize(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps_dir", required=True)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--peak_tflops", type=float, default=989.4, help="bf16 dense, datasheet")
    parser.add_argument("--compile", default="", help="comma list of tags to also torch.compile")
    parser.add_argument("--skip_eager", action="store_true", help="only the --compile tags")
    parser.add_argument("--results", default="", help="also write the rows here (JSON)")
    return parser.parse_args()


def main() -> None:
    args = _parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    name = torch.cuda.get_device_name() if device == "cuda" else "cpu"
    print(f"device: {name}, torch {torch.__version__}, transformers {transformers.__version__}")
    with open(os.path.join(args.steps_dir, "manifest.json")) as handle:
        entries = [e for e in json.load(handle) if e["implementation"] == "albert_tf"]
    compiled_tags = set(args.compile.split(","))
    # Eager settings first: torch.compile's minutes of compiling come last.
    settings = [] if args.skip_eager else [(entry, False) for entry in entries]
    settings += [(entry, True) for entry in entries if entry["tag"] in compiled_tags]
    # albert_tf's tag is albert_tf or albert_tf_<form>, then the setting: forms of one setting
    # (`export_step_hlo.py --form_label`) share a batch, so PyTorch runs it once.
    named = {}
    for entry, compiled in settings:
        setting = "hf-" + entry["tag"].split("-", 1)[1] + (" compiled" if compiled else "")
        named.setdefault(setting, (entry, compiled))
    rows = []
    for setting, (entry, compiled) in named.items():
        values = np.load(os.path.join(args.steps_dir, f"{entry['tag']}.npz"))
        try:
            seconds, loss = time_setting(entry, values, device, compiled, args.iterations)
        except torch.OutOfMemoryError as error:
            print(f"  {setting}: out of memory ({str(error)[:120]})", flush=True)
            continue
        finally:
            if device == "cuda":
                torch.cuda.empty_cache()
        sequences = entry["batch_size"] / seconds
        tflops = sequences * entry["sequence_flops"] / 1e12
        rows.append(
            {
                "tag": setting,
                "batch_size": entry["batch_size"],
                "step_ms": 1e3 * seconds,
                "sequences_per_second": sequences,
                "model_tflops": tflops,
                "mfu_peak": tflops / args.peak_tflops,
                "loss": loss,
            }
        )
        print(f"  {setting}: {1e3 * seconds:.1f} ms/step, {sequences:.0f} seq/s", flush=True)
    print(f"\nMFU against {args.peak_tflops:.0f} TFLOP/s (datasheet bf16 dense)")
    print("| step | batch | ms/step | seq/s | TFLOP/s | MFU | loss |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['tag']} | {row['batch_size']} | {row['step_ms']:.1f} | "
            f"{row['sequences_per_second']:.0f} | {row['model_tflops']:.0f} | "
            f"{100 * row['mfu_peak']:.1f}% | {row['loss']:.3f} |"
        )
    if args.results:
        with open(args.results, "w") as handle:
            json.dump({"device": name, "rows": rows}, handle)


if __name__ == "__main__":
    main()
