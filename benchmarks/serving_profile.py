"""Where a batch-1 serving call's time goes: albert_tf's SavedModel and Hugging Face's pipeline.

albert_tf: `bench_serving.py`'s export (ALBERT-base classifier, raw text in, one precision,
the serving forms `Runtime.for_machine()` picks; the `ALBERT_TF_*` variables override them) is
called on one text at a time under the TensorFlow profiler, and the trace is read per call:

* op time by category: matmuls, the attention's batched matmuls, transposes, tokenization and
  packing (the string and ragged ops), the XLA program (a compiled forward), elementwise and
  other ops, and how many ops run per call (each costs its dispatch);
* the timeline (`step_timeline.attribute`): wall time with a matmul running, then each other
  category alone, then idle;
* with `XLA_FLAGS=--xla_cpu_enable_xprof_traceme=true`, the XLA program's own time: its dots,
  its fusions (the elementwise chains), the rest.

Hugging Face: the `text-classification` pipeline at batch 1 under `torch.profiler`: CPU time per
aten op per call, and the call's time outside them (tokenizer, pipeline, Python).

`ONEDNN_VERBOSE=1` (where TensorFlow runs oneDNN, e.g. `TF_ENABLE_ONEDNN_OPTS=1`) piped to
`onednn_summary.py` says which oneDNN kernels the matmuls ran.

Illustration (not run; ~3 minutes on 2 CPU cores):
    python benchmarks/serving_profile.py --calls=30
    ALBERT_TF_COMPILED_SERVING=0 python benchmarks/serving_profile.py --implementations=albert_tf
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import tempfile
import time
from collections.abc import Callable

import tensorflow as tf
from bench_serving import REPO_ROOT, albert_tf_predictor, hf_predictor, long_texts
from step_timeline import CATEGORIES, attribute, read_op_events

from albert_tf.config import AlbertConfig
from albert_tf.runtime import Runtime
from albert_tf.tokenization import train_sentencepiece

# Op types of in-graph tokenization and packing (besides any op on strings or ragged tensors).
TOKENIZATION = {"SentencepieceTokenizeOp", "NormalizeUTF8", "StaticRegexReplace", "StringLower"}
ELEMENTWISE = {"AddV2", "Mul", "Sub", "Square", "Tanh", "Rsqrt", "BiasAdd", "Softmax", "Mean"}
# XLA's thunks inside a compiled program, by what they run.
XLA_KINDS = (("dot", ("dot", "MatMul", "Einsum", "matmul")), ("fusion", ("fusion",)))


def category(op_type: str) -> str:
    """The category of a TensorFlow op type in this profile.

    >>> category("_FusedMatMul"), category("SentencepieceTokenizeOp"), category("Mul")
    ('matmul', 'tokenization', 'elementwise')
    """
    for name, types in CATEGORIES.items():
        if op_type in types:
            return "XLA program" if name == "XLA kernel" else name
    if op_type in TOKENIZATION or "String" in op_type or "Ragged" in op_type:
        return "tokenization"
    if op_type in ELEMENTWISE:
        return "elementwise"
    return "other"


def traced(call: Callable[[], object], calls: int) -> tuple[str, float]:
    """Runs `call` `calls` times under the TensorFlow profiler: (trace directory, seconds)."""
    logdir = tempfile.mkdtemp(prefix="serving_profile-")
    tf.profiler.experimental.start(logdir)
    start = time.perf_counter()
    for _ in range(calls):
        call()
    seconds = time.perf_counter() - start
    tf.profiler.experimental.stop()
    return logdir, seconds


def xla_thunk_seconds(logdir: str) -> dict[str, float]:
    """Seconds in the XLA program's thunks by kind (its dots, fusions, the rest)."""
    from tensorflow.tsl.profiler.protobuf import xplane_pb2

    path = sorted(glob.glob(os.path.join(logdir, "**", "*.xplane.pb"), recursive=True))[-1]
    space = xplane_pb2.XSpace()
    with open(path, "rb") as handle:
        space.ParseFromString(handle.read())
    totals: collections.Counter[str] = collections.Counter()
    for plane in space.planes:
        stats = {key: value.name for key, value in plane.stat_metadata.items()}
        names = {key: value.name for key, value in plane.event_metadata.items()}
        for line in plane.lines:
            for event in line.events:
                if not any(stats.get(s.metadata_id) == "hlo_op" for s in event.stats):
                    continue
                name = names.get(event.metadata_id, "")
                kind = next((k for k, keys in XLA_KINDS if any(x in name for x in keys)), "other")
                totals[kind] += event.duration_ps / 1e12
    return dict(totals)


def profile_albert_tf(predict: Callable, texts: list[str], calls: int) -> None:
    start = time.perf_counter()
    predict(texts[:1])  # The first call of a shape: grappler, XLA compilation (where compiled).
    first = time.perf_counter() - start
    for text in texts[1:3]:
        predict([text])
    print(f"\nalbert_tf: the first call took {first:.1f} s")
    texts = texts[:calls]
    index = iter(range(calls))
    logdir, seconds = traced(lambda: predict([texts[next(index) % len(texts)]]), calls)
    events = read_op_events(logdir)
    per_call = 1e3 / calls
    print(f"albert_tf, batch 1: {seconds * per_call:.1f} ms per call traced")
    op_time: collections.Counter[str] = collections.Counter()
    op_count: collections.Counter[str] = collections.Counter()
    for start, end, op_type in events:
        op_time[category(op_type)] += (end - start) / 1e12
        op_count[category(op_type)] += 1
    print(f"  {len(events) / calls:.0f} TensorFlow ops per call; op time per call (ops overlap):")
    for name, total in op_time.most_common():
        print(f"    {name:16s} {total * per_call:8.2f} ms  {op_count[name] / calls:6.1f} ops")
    timeline = collections.Counter()
    for name, total in attribute(events).items():
        timeline[name if name in ("matmul running", "idle") else category(name)] += total
    print("  wall time on the timeline, per call:")
    for name, total in timeline.most_common():
        label = name if name in ("matmul running", "idle") else f"{name} (no matmul running)"
        print(f"    {label:38s} {total * per_call:8.2f} ms {total / seconds:6.1%}")
    thunks = xla_thunk_seconds(logdir)
    if thunks:
        print("  inside the XLA program, per call:")
        for name, total in sorted(thunks.items(), key=lambda item: -item[1]):
            print(f"    {name:16s} {total * per_call:8.2f} ms")


def profile_hf(predict: Callable, tokenizer, texts: list[str], calls: int) -> None:
    import torch

    for text in texts[:3]:
        predict([text])
    start = time.perf_counter()
    for text in texts[:calls]:
        tokenizer([text], truncation=True, max_length=128)
    tokenize_ms = 1e3 * (time.perf_counter() - start) / calls
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(activities=activities) as profiler:
        start = time.perf_counter()
        for i in range(calls):
            predict([texts[i % len(texts)]])
        seconds = time.perf_counter() - start
    rows = [row for row in profiler.key_averages() if row.key.startswith("aten::")]
    # Self time: each op's own, not its children's (aten::linear holds aten::addmm).
    total = sum(row.self_cpu_time_total for row in rows) / 1e3 / calls
    per_call = 1e3 * seconds / calls
    print(f"\nHugging Face pipeline, batch 1: {per_call:.1f} ms per call profiled")
    print(f"  aten ops' own CPU time {total:.1f} ms per call; tokenizer alone {tokenize_ms:.2f} ms")
    for row in sorted(rows, key=lambda row: -row.self_cpu_time_total)[:12]:
        print(
            f"    {row.key:36s} {row.self_cpu_time_total / 1e3 / calls:8.2f} ms "
            f"{row.count / calls:6.1f} calls"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument("--precision", default="float32")
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--implementations", default="albert_tf,hf")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
    for name, choice in Runtime.for_machine().describe()["forms"].items():
        print(f"runtime: {name} {'on' if choice['on'] else 'off'} ({choice['reason']})")
    texts = long_texts(64, words=2 * args.seq_length)
    implementations = args.implementations.split(",")
    with tempfile.TemporaryDirectory() as workdir:
        spm_file = train_sentencepiece(
            [os.path.join(REPO_ROOT, "data", "sample.txt")],
            os.path.join(workdir, "spm"),
            vocab_size=8000,
        )
        config = AlbertConfig.preset(args.preset, vocab_size=8000)
        build = (config, spm_file, args.seq_length, args.precision, workdir)
        if "albert_tf" in implementations:
            predict = albert_tf_predictor(
                config, spm_file, args.seq_length, args.precision, workdir
            )
            profile_albert_tf(predict, texts, args.calls)
        if "hf" in implementations:
            from peers import hf_fast_tokenizer

            predict = hf_predictor(*build)
            profile_hf(predict, hf_fast_tokenizer(spm_file, workdir), texts, args.calls)


if __name__ == "__main__":
    main()
