"""Throughput and memory of the pretraining-data builder on WikiText-2 train.

Each configuration runs in a fresh subprocess (so peak RSS is its own): instances/s and
pieces/s of the whole build (reading, tokenization, instances, masking, writing) and the
peak RSS of the main process and of the largest worker. The 10x run uses the corpus
repeated 10 times, to check that memory does not grow with the corpus (streaming).

Beside the local builder, the Apache Beam pipeline (`beam_builder`) on the DirectRunner:
in-memory (one process) and multi-processing with each of `--beam_workers` worker
processes. "tree RSS" is the peak of the summed RSS of the run's whole process tree
(sampled every 50 ms from /proc), which counts Beam's SDK worker processes; "CPU s" sums
user+system time of the process and its children; "records" is a digest of the output's
multiset of records (runs of one corpus and length must agree). Ratios print at the end.

    python benchmarks/bench_pretraining_data.py [--spm_model_file=...] [--parallelism=1,2]
        [--beam_workers=1,2] [--max_seq_length=128] [--noten_x] [--dupe_factor=1]
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

from absl import app, flags

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIKITEXT = os.path.join(REPO_ROOT, "..", "shared", "data", "wikitext-2-raw")

FLAGS = flags.FLAGS
flags.DEFINE_string("spm_model_file", None, "Model; default: 8000 pieces trained on valid+test.")
flags.DEFINE_list("parallelism", ["1", "2"], "Worker-process settings to measure.")
flags.DEFINE_list("max_seq_length", ["128", "512"], "Sequence lengths to measure.")
flags.DEFINE_bool("ten_x", True, "Also measure the 10x corpus (memory check).")
flags.DEFINE_list("beam_workers", ["1", "2"], "Beam DirectRunner worker processes ([] = none).")
flags.DEFINE_bool("beam_in_memory", True, "Also run Beam's in-memory DirectRunner.")
flags.DEFINE_string("corpus", None, "WikiText raw file; default: WikiText-2 train.")
flags.DEFINE_integer("dupe_factor", 1, "Passes over the corpus.")
flags.DEFINE_integer("batch_characters", 1_000_000, "Characters per batch (all runs).")

_CHILD = """
import json, resource, sys, time
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
if __name__ == "__main__":
    settings = json.loads(sys.argv[1])
    beam_args = settings.pop("beam_args", None)
    options = BuilderOptions(**settings)
    start = time.perf_counter()
    if beam_args is None:
        manifest = build_pretraining_data(options)
    else:
        from albert_tf.data.beam_builder import build_pretraining_data_beam
        manifest = build_pretraining_data_beam(options, beam_args)
    seconds = time.perf_counter() - start
    print(json.dumps({
        "seconds": seconds,
        "instances": manifest["statistics"]["instances"],
        "real_tokens": manifest["statistics"]["real_tokens"],
        "main_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "worker_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "cpu_seconds": sum(
            usage.ru_utime + usage.ru_stime
            for usage in (resource.getrusage(resource.RUSAGE_SELF),
                          resource.getrusage(resource.RUSAGE_CHILDREN))
        ),
    }))
"""


def _tree_rss_bytes(root: int) -> int:
    """Summed RSS of `root` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/statm") as handle:
                total += int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            pass
    return total


def _records_digest(output_dir: str) -> str:
    """Sha256 of the sorted record hashes: equal digests = the same multiset of records."""
    hashes = []
    for path in glob.glob(os.path.join(output_dir, "part-*.tfrecord")):
        with open(path, "rb") as handle:
            data = handle.read()
        offset = 0
        while offset < len(data):
            (length,) = struct.unpack("<Q", data[offset : offset + 8])
            hashes.append(hashlib.sha256(data[offset + 12 : offset + 12 + length]).digest())
            offset += 16 + length
    return hashlib.sha256(b"".join(sorted(hashes))).hexdigest()[:12]


def _measure(options: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=REPO_ROOT)
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, json.dumps(options)], stdout=out, stderr=err, env=env
        )
        peak = 0
        while child.poll() is None:
            peak = max(peak, _tree_rss_bytes(child.pid))
            time.sleep(0.05)
        out.seek(0), err.seek(0)
        if child.returncode:
            raise RuntimeError(f"run failed: {err.read()[-3000:]}")
        row = json.loads(out.read().strip().splitlines()[-1])
    return dict(row, tree_rss_mb=peak / 2**20)


def main(argv):
    del argv
    with tempfile.TemporaryDirectory(prefix="bench_pretraining_data_") as work:
        _run(work)


def _run(work: str) -> None:
    model = FLAGS.spm_model_file
    if model is None:
        from albert_tf.data.documents import convert_wikitext
        from albert_tf.tokenization.train import train_sentencepiece

        parts = []
        for split in ("valid", "test"):
            parts.append(os.path.join(work, f"{split}.txt"))
            convert_wikitext(os.path.join(WIKITEXT, f"{split}.txt"), parts[-1])
        model = train_sentencepiece(parts, os.path.join(work, "wt8k"), vocab_size=8000)
    train = FLAGS.corpus or os.path.join(WIKITEXT, "train.txt")
    ten_x = os.path.join(work, "train_10x.txt")
    if FLAGS.ten_x:
        with open(train, "rb") as source, open(ten_x, "wb") as target:
            data = source.read()
            for _ in range(10):
                target.write(data)
    base = dict(
        spm_model_file=model,
        dupe_factor=FLAGS.dupe_factor,
        batch_characters=FLAGS.batch_characters,
        input_format="wikitext",
        num_output_shards=4,
        overwrite=True,
    )
    runs = []
    for length in map(int, FLAGS.max_seq_length):
        runs += [(f"L={length} 1x par={p}", train, int(p), length) for p in FLAGS.parallelism]
        if FLAGS.ten_x:
            last = int(FLAGS.parallelism[-1])
            runs.append((f"L={length} 10x par={last}", ten_x, last, length))
        if FLAGS.beam_in_memory:
            runs.append((f"L={length} 1x beam in-mem", train, ["--runner=DirectRunner"], length))
        for workers in FLAGS.beam_workers:
            beam_args = [
                "--runner=DirectRunner",
                f"--direct_num_workers={workers}",
                "--direct_running_mode=multi_processing",
            ]
            runs.append((f"L={length} 1x beam w={workers}", train, beam_args, length))
    print(
        f"{'run':<24}{'instances':>10}{'seconds':>9}{'inst/s':>9}{'pieces/s':>11}"
        f"{'main RSS':>10}{'worker RSS':>12}{'tree RSS':>10}{'CPU s':>8}{'inst/CPU-s':>12}"
        f"{'records':>14}"
    )
    seconds = {}
    for name, corpus, setting, length in runs:
        output_dir = os.path.join(work, "out")
        options = dict(base, input_file=corpus, output_dir=output_dir, max_seq_length=length)
        if isinstance(setting, list):
            options["beam_args"] = setting
        else:
            options["parallelism"] = setting
        row = _measure(options)
        seconds[name] = row["seconds"]
        digest = _records_digest(output_dir)
        print(
            f"{name:<24}{row['instances']:>10}{row['seconds']:>9.2f}"
            f"{row['instances'] / row['seconds']:>9.0f}{row['real_tokens'] / row['seconds']:>11.0f}"
            f"{row['main_rss_mb']:>8.0f}MB{row['worker_rss_mb']:>10.0f}MB"
            f"{row['tree_rss_mb']:>8.0f}MB"
            f"{row['cpu_seconds']:>8.1f}{row['instances'] / row['cpu_seconds']:>12.0f}"
            f"{digest:>14}",
            flush=True,
        )
    _print_ratios(seconds)


def _print_ratios(seconds: dict[str, float]) -> None:
    """Speed ratios (time of the first / time of the second) of the runs that exist."""
    for length in FLAGS.max_seq_length:
        prefix = f"L={length} 1x "
        pairs = [
            ("beam w=2", "beam w=1", "Beam 2 workers vs 1 worker: speed-up"),
            ("beam w=1", "par=1", "Beam 1 worker vs local par=1: time ratio"),
            ("beam w=2", "par=2", "Beam 2 workers vs local par=2: time ratio"),
            ("beam in-mem", "par=1", "Beam in-memory vs local par=1: time ratio"),
            ("par=2", "par=1", "local par=2 vs par=1: speed-up"),
        ]
        for first, second, label in pairs:
            a, b = seconds.get(prefix + first), seconds.get(prefix + second)
            if a is None or b is None:
                continue
            ratio = b / a if "speed-up" in label else a / b
            print(f"L={length} {label}: {ratio:.2f}x")


if __name__ == "__main__":
    app.run(main)
