"""Where oneDNN's time goes: sums `ONEDNN_VERBOSE=1` exec lines per primitive and kernel.

Reads a log on stdin (or files), prints milliseconds, calls and share per (primitive, kernel),
largest first, e.g. which matmuls ran on AMX tiles (`brg_matmul:avx10_1_512_amx`) and which
fell back to AVX-512 or reference kernels. Time spent outside oneDNN (Eigen ops, XLA, Python) is
not in the log: compare the total with the step time.

Illustration (not run):
    ONEDNN_VERBOSE=1 python benchmarks/bench_finetune.py --implementations=albert_tf \\
        --precisions=mixed_bfloat16 --xla=no --warmup=0 --rounds=1 --steps=1 2>&1 \\
        | python benchmarks/onednn_summary.py
"""

from __future__ import annotations

import collections
import fileinput


def summarize(lines) -> dict[tuple[str, str], list[float]]:
    """(primitive, kernel) -> [milliseconds, calls] over the `exec` lines."""
    totals: dict[tuple[str, str], list[float]] = collections.defaultdict(lambda: [0.0, 0])
    for line in lines:
        fields = line.strip().split(",")
        if len(fields) < 8 or not fields[0].startswith("onednn_verbose"):
            continue
        try:
            at = fields.index("exec")
            milliseconds = float(fields[-1])
        except ValueError:
            continue
        entry = totals[(fields[at + 2], fields[at + 3])]
        entry[0] += milliseconds
        entry[1] += 1
    return totals


def main() -> None:
    totals = summarize(fileinput.input())
    grand = sum(ms for ms, _ in totals.values()) or 1.0
    print(f"{'primitive':<16} {'kernel':<36} {'ms':>10} {'calls':>7} {'share':>6}")
    for (primitive, kernel), (ms, calls) in sorted(totals.items(), key=lambda kv: -kv[1][0]):
        print(f"{primitive:<16} {kernel:<36} {ms:10.1f} {calls:7d} {ms / grand:6.1%}")
    print(f"{'total':<53} {grand:10.1f}")


if __name__ == "__main__":
    main()
