"""Where a fine-tuning step's wall time goes: a TensorFlow profiler trace, read as a timeline.

Traces `fit` steps of `bench_finetune.py`'s albert_tf setting (ALBERT-base sentence-pair
classification, batch 32, length 128, AdamW) and reads the trace's TensorFlow op events. Ops
overlap on the CPU's cores, so summed op time says little about the step's time; here the
step's timeline is swept instead:

* while a matmul runs, the step is at its matmuls' rate;
* the rest of the wall time (no matmul running) is split among the ops that do run then: the
  fused XLA kernels (GELU, LayerNorm, softmax), the attention's batched matmuls, transposes,
  the optimizer and others, or nothing (idle).

From that, the rate of the matmuls while they run, and the ceiling if everything else were
free: the sequences per second of the time with a matmul (batched ones included) running.
With `--peer_rate` (the best peer's sequences/s from `bench_finetune.py`), both as ratios to
it.

Illustration (not run; ~2 minutes on 2 CPU cores):
    python benchmarks/step_timeline.py --peer_rate=3.87
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import tempfile
import time
from collections.abc import Iterable

import tensorflow as tf
from bench_finetune import albert_tf_runner, synthetic_pairs
from roofline import classifier_step_flops

from albert_tf.config import AlbertConfig
from albert_tf.training.precision import resolve_precision

Event = tuple[int, int, str]  # (start, end) in picoseconds, TensorFlow op type

# Op types by what they are on the timeline ("XLA kernel": an async launch of a compiled one).
CATEGORIES = {
    "matmul": ("MatMul", "_MklMatMul", "_MklNativeMatMul", "_FusedMatMul", "_MklFusedMatMul"),
    "batched matmul": ("BatchMatMulV2", "BatchMatMulV3", "_MklBatchMatMulV2", "_MklBatchMatMul"),
    "transpose": ("Transpose", "_MklTranspose", "ConjugateTranspose"),
    # The fused kernels are `jit_compile` functions, which the step calls as functions.
    "XLA kernel": ("XlaLaunch", "_XlaRun", "PartitionedCall", "StatefulPartitionedCall"),
}
_CATEGORY_OF = {op: category for category, ops in CATEGORIES.items() for op in ops}
_ASYNC_START = "ExecutorState::ProcessAsync::Start"


def category(op_type: str) -> str:
    """The timeline category of a TensorFlow op type; other ops keep their type.

    >>> category("_MklMatMul"), category("AddN")
    ('matmul', 'AddN')
    """
    return _CATEGORY_OF.get(op_type, op_type)


def read_op_events(logdir: str) -> list[Event]:
    """The TensorFlow op events of the host's executor threads in the newest trace in `logdir`.

    Nested events (XLA's own thunks, thread-pool regions) are left out: an op's event already
    covers them.
    """
    from tensorflow.tsl.profiler.protobuf import xplane_pb2

    path = sorted(glob.glob(os.path.join(logdir, "**", "*.xplane.pb"), recursive=True))[-1]
    space = xplane_pb2.XSpace()
    with open(path, "rb") as handle:
        space.ParseFromString(handle.read())
    events = []
    for plane in space.planes:
        if plane.name != "/host:CPU":
            continue
        names = {key: value.name for key, value in plane.event_metadata.items()}
        stat_names = {key: value.name for key, value in plane.stat_metadata.items()}
        for line in plane.lines:
            if not line.name.startswith("tf_Compute"):
                continue
            origin = line.timestamp_ns * 1000
            for event in line.events:
                name = names.get(event.metadata_id, "")
                if name == _ASYNC_START:  # An async op (function call, iterator): its type.
                    op_type = _kernel_type(event, stat_names)
                elif ":" in name and "::" not in name and not _is_xla_thunk(event, stat_names):
                    op_type = name.rsplit(":", 1)[1]  # "scope/name:OpType"
                else:
                    continue
                start = origin + event.offset_ps
                events.append((start, start + event.duration_ps, op_type))
    return events


def _is_xla_thunk(event, stat_names: dict[int, str]) -> bool:
    return any(stat_names.get(stat.metadata_id) == "hlo_op" for stat in event.stats)


def _kernel_type(event, stat_names: dict[int, str]) -> str:
    for stat in event.stats:
        if stat_names.get(stat.metadata_id) == "kernel_type":
            value = getattr(stat, stat.WhichOneof("value"))
            return stat_names.get(value, "") if stat.WhichOneof("value") == "ref_value" else value
    return "async op"


def attribute(events: Iterable[Event]) -> dict[str, float]:
    """Seconds of wall time: "matmul running", then each category alone when none runs, "idle".

    When no matmul runs and several ops do, the time is split evenly among them.

    >>> ps = 10**12
    >>> attribute([(0, 2 * ps, "_MklMatMul"), (1 * ps, 4 * ps, "AddN"), (5 * ps, 6 * ps, "AddN")])
    {'matmul running': 2.0, 'AddN': 3.0, 'idle': 1.0}
    """
    edges = []
    for start, end, op_type in events:
        edges += [(start, 1, category(op_type)), (end, -1, category(op_type))]
    edges.sort()
    running: collections.Counter[str] = collections.Counter()
    seconds: collections.Counter[str] = collections.Counter()
    previous = edges[0][0] if edges else 0
    for time_ps, change, name in edges:
        span = (time_ps - previous) / 1e12
        active = [key for key, count in running.items() if count > 0]
        if span > 0:
            if running["matmul"] > 0:
                seconds["matmul running"] += span
            elif not active:
                seconds["idle"] += span
            else:
                for key in active:
                    seconds[key] += span / len(active)
        running[name] += change
        previous = time_ps
    ordered = {"matmul running": seconds.pop("matmul running", 0.0)}
    idle = seconds.pop("idle", 0.0)
    ordered.update(sorted(seconds.items(), key=lambda item: -item[1]))
    ordered["idle"] = idle
    return ordered


def op_seconds(events: Iterable[Event]) -> collections.Counter[str]:
    """Summed op time per category (more than wall time where ops overlap)."""
    totals: collections.Counter[str] = collections.Counter()
    for start, end, op_type in events:
        totals[category(op_type)] += (end - start) / 1e12
    return totals


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--xla", action="store_true", help="the whole step under jit_compile")
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=2, help="traced training steps")
    parser.add_argument("--peer_rate", type=float, default=0.0, help="best peer's seq/s")
    return parser.parse_args()


def main() -> None:
    args = _parse_args()
    precision = resolve_precision(args.precision, jit_compile=args.xla)
    config = AlbertConfig.preset(args.preset, hidden_dropout_prob=0.0)
    data = synthetic_pairs(config, args.batch_size, args.seq_length)
    run = albert_tf_runner(config, data, precision, args.xla, args.steps)
    run()  # Compiles and warms oneDNN's caches.
    start = time.perf_counter()
    sequences = run()
    untraced = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as logdir:
        tf.profiler.experimental.start(logdir)
        start = time.perf_counter()
        run()
        traced = time.perf_counter() - start
        tf.profiler.experimental.stop()
        events = read_op_events(logdir)
    print(
        f"{args.preset}, {precision}{' XLA' if args.xla else ''}, batch {args.batch_size}, "
        f"length {args.seq_length}: {args.steps} steps {untraced:.2f} s untraced "
        f"({sequences / untraced:.2f} seq/s), {traced:.2f} s traced"
    )
    print("\nop time (ops overlap on the cores):")
    for name, seconds in op_seconds(events).most_common(8):
        print(f"  {name:24s} {seconds:7.2f} s")
    timeline = attribute(events)
    print("\nwall time on the timeline:")
    rest = 0.0
    for name, seconds in timeline.items():
        if name not in ("matmul running", "idle") and seconds < 0.005 * traced:
            rest += seconds  # Printed together, below.
            continue
        label = name if name in ("matmul running", "idle") else f"{name} (no matmul running)"
        print(f"  {label:44s} {seconds:6.2f} s {seconds / traced:6.1%}")
    print(f"  {'the other ops (no matmul running)':44s} {rest:6.2f} s {rest / traced:6.1%}")
    # The attention's batched matmuls are in the work: their exposed time counts as matmuls.
    matmul_seconds = timeline["matmul running"] + timeline.get("batched matmul", 0.0)
    work = classifier_step_flops(config, args.seq_length) * sequences
    ceiling = sequences / matmul_seconds
    print(
        f"\nmatmul work {work / 1e9:.0f} GFLOP in {matmul_seconds:.2f} s with a matmul running "
        f"(batched ones included): {work / matmul_seconds / 1e9:.0f} GFLOP/s\n"
        f"if everything but the matmuls were free: {ceiling:.2f} seq/s "
        f"({traced / matmul_seconds:.2f}x the traced step)"
    )
    if args.peer_rate:
        print(
            f"against the best peer's {args.peer_rate:.2f} seq/s: now "
            f"{sequences / untraced / args.peer_rate:.2f}x, that ceiling "
            f"{ceiling / args.peer_rate:.2f}x (goal 1.2x)"
        )


if __name__ == "__main__":
    main()
