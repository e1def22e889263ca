"""What each GPU kernel of a traced step holds: its time per step beside the fused HLO it runs.

`run_step_hlo.py --profile` writes a jax.profiler trace (`*.trace.json.gz`); with
`XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text` XLA also writes each module's optimized
HLO (`*after_optimizations.txt`; `run_gpu_steps.sh` with `DUMP_HLO=1` packs both). XLA names a
fusion's kernel after the fusion (`loop_add_fusion.11` runs as `loop_add_fusion_11`), so each
kernel's output shape, the ops fused into it and its inputs can be read beside its time; GEMM
library kernels (cuBLAS `nvjet_*`) have no HLO of their own and show their time only.

Illustration (not run; the files come back from the GPU machine):
    python benchmarks/trace_kernels.py --trace=albert_tf-finetuning-albert_base-512.trace.json.gz \
        --hlo_dir=hlo --steps=3 --top=30
"""

from __future__ import annotations

import argparse
import collections
import glob
import gzip
import json
import os
import re

# An instruction of the HLO text: `%name = shape op(...)`, maybe ROOT.
INSTRUCTION = re.compile(r"^\s*(?:ROOT )?%([\w.\-]+) = (.*)$", re.M)
# A computation: `%name (params) -> shape {` ... `}`.
COMPUTATION = re.compile(r"^%?([\w.\-]+) [^\n]*\{\n(.*?)\n\}", re.M | re.S)
OP = re.compile(r"= \S+ ([a-z\-]+)\(")
UNINTERESTING = {"parameter", "broadcast", "bitcast", "constant", "reshape"}


def device_kernels(trace_path: str) -> dict[str, tuple[int, float]]:
    """Kernel name -> (launches, total microseconds) over the trace's GPU events."""
    with gzip.open(trace_path) as handle:
        events = json.load(handle)["traceEvents"]
    processes = {
        event["pid"]: event["args"]["name"]
        for event in events
        if event.get("ph") == "M" and event.get("name") == "process_name"
    }
    totals: dict[str, list] = collections.defaultdict(lambda: [0, 0.0])
    for event in events:
        if event.get("ph") == "X" and "GPU" in processes.get(event["pid"], ""):
            totals[event["name"]][0] += 1
            totals[event["name"]][1] += event["dur"]
    return {name: (count, micros) for name, (count, micros) in totals.items()}


def hlo_instructions(text: str) -> dict[str, str]:
    """Kernel-style name (dots as underscores) -> the instruction's text after `=`."""
    instructions: dict[str, str] = {}
    for match in INSTRUCTION.finditer(text):
        instructions.setdefault(match.group(1).replace(".", "_"), match.group(2))
    return instructions


def matching_module(kernel_names: list[str], hlo_dir: str) -> tuple[str, str, dict[str, str]]:
    """(path, text, instructions) of the dumped module naming the most of the trace's kernels."""
    paths = glob.glob(os.path.join(hlo_dir, "*after_optimizations.txt"))
    if not paths:
        raise SystemExit(
            f"{hlo_dir}: no *after_optimizations.txt; unpack optimized_hlo.tgz of a "
            "run_gpu_steps.sh run with DUMP_HLO=1 there"
        )
    best = ("", "", {})
    best_hits = -1
    for path in paths:
        with open(path) as handle:
            text = handle.read()
        names = hlo_instructions(text)
        hits = sum(name in names for name in kernel_names)
        if hits > best_hits:
            best, best_hits = (path, text, names), hits
    return best


def describe(instruction: str, computations: dict[str, str]) -> str:
    """`shape | fused ops (counts) | input shapes` of a fusion instruction."""
    shape = instruction.split(" ")[0]
    call = re.search(r"calls=%([\w.\-]+)", instruction)
    if not call or call.group(1) not in computations:
        return shape
    body = computations[call.group(1)]
    ops = collections.Counter(op for op in OP.findall(body) if op not in UNINTERESTING)
    inputs = ",".join(p.split("{")[0] for p in re.findall(r"= (\S+) parameter\(", body))
    fused = " ".join(f"{op}x{n}" if n > 1 else op for op, n in ops.most_common(8))
    return f"{shape} | {fused} | in: {inputs}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", required=True, help="a *.trace.json.gz of run_step_hlo.py")
    parser.add_argument("--hlo_dir", required=True, help="the *after_optimizations.txt files")
    parser.add_argument("--steps", type=int, default=3, help="steps in the trace")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    kernels = device_kernels(args.trace)
    if not kernels:
        raise SystemExit(f"{args.trace}: no GPU kernel events; is it a run_step_hlo.py trace?")
    module, text, instructions = matching_module(list(kernels), args.hlo_dir)
    computations = {m.group(1): m.group(2) for m in COMPUTATION.finditer(text)}
    total = sum(micros for _, micros in kernels.values()) / args.steps
    print(f"{args.trace}: {total / 1e3:.1f} ms of device time per step; HLO: {module}")
    print("us/step launches/step us/launch kernel | output | fused ops | inputs")
    ranked = sorted(kernels.items(), key=lambda item: -item[1][1])[: args.top]
    for name, (count, micros) in ranked:
        what = describe(instructions[name], computations) if name in instructions else ""
        print(
            f"{micros / args.steps:7.0f} {count // args.steps:4d} {micros / count:7.1f} "
            f"{name[:40]:40s} {what[:160]}"
        )


if __name__ == "__main__":
    main()
