"""Runs the training steps `export_step_hlo.py` wrote, with jaxlib's XLA, and times them.

For a machine with an accelerator and no TensorFlow: it needs jax and numpy only. Each step's
HLO module is compiled for the first device (as TensorFlow's XLA would compile it there), fed
the exported batch, the small variables' real values and random large ones (weights N(0, 0.02),
small optimizer slots), checked (the step's loss is finite and near its value at random
initialization, ~ln(30000) + ln(2) for pretraining; with `export_step_hlo.py --exact`, equal
to TensorFlow's own first step), then run `--iterations` times back to back.
Printed per step: sequences/s, the model FLOPs rate (`export_step_hlo.sequence_flops`) and its
share of the device's peak (model FLOPs utilization, MFU) and of the best bf16 GEMM measured
here; then albert_tf / keras_hub per setting.

Steps are compiled first (in `--compile_workers` threads, highest priority first, until
`--compile_seconds` have passed) and timed one after the other with nothing else on the device.

Illustration (not run; on a GPU machine):
    python benchmarks/run_step_hlo.py --steps_dir=.steps --peak_tflops=989.4
"""

from __future__ import annotations

import argparse
import concurrent.futures
import gzip
import json
import os
import re
import statistics
import time
from typing import Any

import jax
import jax.extend.backend
import jax.numpy as jnp
import numpy as np
from jax._src.interpreters import mlir
from jax._src.lib import _jax, xla_client
from jax._src.lib.mlir import ir

jax.config.update("jax_enable_x64", True)  # The steps' counters are int64 parameters.

# The order settings are compiled and timed in: what a lease cut short still reports.
PRIORITY = ("albert_base-128", "albert_large-128", "albert_base-512", "albert_large-512")


def best_gemm_tflops(device: Any, size: int = 8192, repeats: int = 20) -> float:
    """Median TFLOP/s of a [size, size] x [size, size] bf16 matmul on random data."""
    keys = jax.random.split(jax.random.key(0), 2)
    a, b = (jax.device_put(jax.random.normal(k, (size, size), jnp.bfloat16), device) for k in keys)
    matmul = jax.jit(jnp.matmul)
    matmul(a, b).block_until_ready()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        matmul(a, b).block_until_ready()
        times.append(time.perf_counter() - start)
    return 2 * size**3 / statistics.median(times) / 1e12


# `%a = mhlo.copy %b : tensor<...>`: what HLO `copy` instructions become in MLIR.
MHLO_COPY = re.compile(r"mhlo\.copy (%[\w#.]+) : (tensor<[^>]*>)")


def stablehlo_text(hlo: bytes) -> str:
    """The StableHLO of a serialized HLO module, its `copy` instructions as identity reshapes.

    TensorFlow's HLO copies a value it returns twice (e.g. a variable's new value); jaxlib's
    GPU compiler rejects the `mhlo.copy` that becomes (CPU compiles it); an identity reshape is
    the same value and XLA removes it.
    """
    with mlir.make_ir_context():
        text = str(ir.Module.parse(_jax.mlir.hlo_to_stablehlo(hlo)))
    text = MHLO_COPY.sub(r"stablehlo.reshape \1 : (\2) -> \2", text)
    if "mhlo.copy" in text:
        raise ValueError("an mhlo.copy of an unexpected form is left")
    return text


def compile_step(backend: Any, device: Any, path: str) -> Any:
    """The executable of a gzip'd serialized HLO module, for `device`."""
    with gzip.open(path, "rb") as handle:
        module = stablehlo_text(handle.read())
    devices = xla_client.DeviceList((device,))
    return backend.compile_and_load(module, devices, xla_client.CompileOptions())


def step_arguments(entry: dict, values: Any, device: Any, seed: int = 0) -> list:
    """The step's parameters on `device`, in HLO order (see `export_step_hlo.export_step`)."""
    rng = np.random.default_rng(seed)
    arguments = []
    for index, parameter in enumerate(entry["parameters"]):
        fill = parameter["fill"]
        if fill == "value":
            value = values[f"p{index}"]
        else:
            shape = parameter["shape"]
            if fill == "weight":
                value = rng.normal(0.0, 0.02, shape)
            elif fill == "momentum":
                value = rng.normal(0.0, 1e-3, shape)
            else:  # velocity: second moments, never negative
                value = rng.uniform(0.0, 1e-6, shape)
            value = value.astype(parameter["dtype"])
        arguments.append(jax.device_put(value, device))
    return arguments


def step_loss(entry: dict, outputs: list) -> float:
    """The loss the step computed: the first output (albert_tf pretraining: from its sums)."""
    first = np.asarray(outputs[0], np.float64)
    if entry["implementation"] == "albert_tf" and entry["task"] == "pretraining":
        # masked_lm_loss / masked_lm_weight + sentence_order_loss / sentence_order_count
        return float(first[2] / first[1] + first[5] / first[4])
    return float(first.reshape(-1)[0])


def updated_variables(executable: Any) -> list[tuple[int, int]]:
    """(output, parameter) index pairs: the outputs that are new values of input variables.

    The step donates those parameters' buffers (HLO `input_output_alias`), so a training loop
    feeds each update's outputs to the next update, as TensorFlow does with its variables.
    """
    header = executable.hlo_modules()[0].to_string().split("\n", 1)[0]
    return [(int(o), int(p)) for o, p in re.findall(r"\{(\d+)\}: \((\d+), \{\}", header)]


def train(executable: Any, arguments: list, steps: int, aliases: list[tuple[int, int]]) -> list:
    """Runs `steps` updates back to back, carrying the `aliases` (`updated_variables`) over;
    the last step's outputs."""
    for _ in range(steps):
        outputs = executable.execute(arguments)
        for output, parameter in aliases:
            arguments[parameter] = outputs[output]
    for output in outputs:
        output.block_until_ready()
    return outputs


def time_step(executable: Any, arguments: list, iterations: int) -> tuple[float, list]:
    """(median seconds per step over 3 runs of `iterations` updates, the warm-up's outputs)."""
    aliases = updated_variables(executable)  # Reads the program's text: not inside the timing.
    first = train(executable, arguments, 1, aliases)
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        train(executable, arguments, iterations, aliases)
        runs.append((time.perf_counter() - start) / iterations)
    return statistics.median(runs), first


def _compare_with_tensorflow(entry: dict, outputs: list) -> None:
    """Checks the first update's first output against TensorFlow's (`export --exact`)."""
    ours = np.asarray(outputs[0], np.float64).ravel()
    reference = np.asarray(entry["reference_output"])
    difference = np.max(np.abs(ours - reference) / np.maximum(np.abs(reference), 1e-6))
    matches = difference < 1e-2
    verdict = "matches" if matches else "DIFFERS FROM"
    print(f"  {entry['tag']}: {verdict} TensorFlow's first step (max rel. diff {difference:.1e})")
    if not matches:
        raise SystemExit(f"{entry['tag']}: {ours} vs TensorFlow's {reference}")


def _priority(entry: dict) -> tuple[int, str]:
    setting = f"{entry['preset']}-{entry['length']}"
    return (PRIORITY.index(setting) if setting in PRIORITY else len(PRIORITY), entry["tag"])


def _compile_all(backend, device, entries, steps_dir, workers, seconds) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    executables = {}
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = {}
        for entry in entries:
            path = os.path.join(steps_dir, f"{entry['tag']}.hlo.pb.gz")
            futures[pool.submit(_timed_compile, backend, device, path, deadline)] = entry["tag"]
        for future in concurrent.futures.as_completed(futures):
            tag = futures[future]
            try:
                executable, took = future.result()
            except Exception as error:  # noqa: BLE001 - reported, the others still run
                print(f"  {tag}: compile failed: {str(error)[:300]}", flush=True)
                continue
            if executable is None:
                print(f"  {tag}: not compiled (past --compile_seconds)", flush=True)
                continue
            executables[tag] = executable
            print(f"  compiled {tag} in {took:.0f} s", flush=True)
    return executables


def _timed_compile(backend, device, path, deadline):
    if time.monotonic() > deadline:
        return None, 0.0
    start = time.perf_counter()
    return compile_step(backend, device, path), time.perf_counter() - start


def _profile(executable: Any, entry: dict, args: argparse.Namespace) -> None:
    """A device trace of 3 steps (jax.profiler: under --profile_dir/<tag>)."""
    values = np.load(os.path.join(args.steps_dir, f"{entry['tag']}.npz"))
    device = executable.local_devices()[0]
    arguments = step_arguments(entry, values, device)
    aliases = updated_variables(executable)
    train(executable, arguments, 1, aliases)
    directory = os.path.join(args.profile_dir, entry["tag"])
    with jax.profiler.trace(directory):
        train(executable, arguments, 3, aliases)
    print(f"profiled 3 steps of {entry['tag']} on {device} into {directory}")


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps_dir", required=True)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--peak_tflops", type=float, default=989.4, help="bf16 dense, datasheet")
    parser.add_argument("--gemm_size", type=int, default=8192)
    parser.add_argument("--compile_workers", type=int, default=4)
    parser.add_argument("--compile_seconds", type=float, default=300.0)
    parser.add_argument("--profile", default="", help="tags to trace 3 steps of (comma list)")
    parser.add_argument("--profile_dir", default="/tmp/step_profile")
    parser.add_argument("--results", default="", help="also write the rows here (JSON)")
    return parser.parse_args()


def main() -> None:
    args = _parse_args()
    with open(os.path.join(args.steps_dir, "manifest.json")) as handle:
        entries = sorted(json.load(handle), key=_priority)
    backend = jax.extend.backend.get_backend()
    device = backend.local_devices()[0]
    print(f"device: {device.device_kind} ({backend.platform}), jax {jax.__version__}", flush=True)
    gemm = best_gemm_tflops(device, args.gemm_size)
    print(f"best bf16 GEMM ({args.gemm_size}^3, random data): {gemm:.0f} TFLOP/s", flush=True)
    executables = _compile_all(
        backend, device, entries, args.steps_dir, args.compile_workers, args.compile_seconds
    )
    rows = []
    for entry in entries:
        if entry["tag"] not in executables:
            continue
        values = np.load(os.path.join(args.steps_dir, f"{entry['tag']}.npz"))
        arguments = step_arguments(entry, values, device)
        try:
            seconds, outputs = time_step(executables[entry["tag"]], arguments, args.iterations)
        except Exception as error:  # noqa: BLE001 - e.g. out of memory; the others still run
            print(f"  {entry['tag']}: run failed: {str(error)[:300]}", flush=True)
            continue
        loss = step_loss(entry, outputs)
        if "reference_output" in entry:
            _compare_with_tensorflow(entry, outputs)
        stats = executables[entry["tag"]].get_compiled_memory_stats()
        sequences = entry["batch_size"] / seconds
        tflops = sequences * entry["sequence_flops"] / 1e12
        row = {
            **{key: entry[key] for key in ("tag", "implementation", "task", "preset", "length")},
            "batch_size": entry["batch_size"],
            "step_ms": 1e3 * seconds,
            "sequences_per_second": sequences,
            "model_tflops": tflops,
            "mfu_peak": tflops / args.peak_tflops,
            "of_best_gemm": tflops / gemm,
            "loss": loss,
            "temp_gb": stats.temp_size_in_bytes / 1e9,
        }
        rows.append(row)
        print(
            f"  {entry['tag']}: {row['step_ms']:.1f} ms/step, {sequences:.0f} seq/s, "
            f"{tflops:.0f} TFLOP/s, loss {loss:.3f}",
            flush=True,
        )
        del arguments, outputs
    for entry in entries:
        if entry["tag"] in args.profile.split(",") and entry["tag"] in executables:
            _profile(executables[entry["tag"]], entry, args)
    _print_table(rows, args.peak_tflops, gemm)
    if args.results:
        with open(args.results, "w") as handle:
            json.dump(
                {"device": device.device_kind, "best_gemm_tflops": gemm, "rows": rows}, handle
            )


def _print_table(rows: list[dict], peak: float, gemm: float) -> None:
    print(f"\nMFU against {peak:.0f} TFLOP/s (datasheet bf16 dense); GEMM: share of {gemm:.0f}")
    print("| step | batch | ms/step | seq/s | TFLOP/s | MFU | of GEMM | temp GB | loss |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['tag']} | {row['batch_size']} | {row['step_ms']:.1f} | "
            f"{row['sequences_per_second']:.0f} | {row['model_tflops']:.0f} | "
            f"{100 * row['mfu_peak']:.1f}% | {100 * row['of_best_gemm']:.1f}% | "
            f"{row['temp_gb']:.1f} | {row['loss']:.3f} |"
        )
    by_tag = {row["tag"]: row for row in rows}
    for row in rows:
        if row["implementation"] != "albert_tf":
            continue
        name, setting = row["tag"].split("-", 1)  # name: albert_tf, or albert_tf_<form>
        peer = by_tag.get(f"keras_hub-{setting}")
        if peer:
            ratio = row["sequences_per_second"] / peer["sequences_per_second"]
            print(f"{name} / keras_hub, {setting}: {ratio:.2f}x")


if __name__ == "__main__":
    main()
