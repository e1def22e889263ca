"""Throughput and memory of the pretraining-data builder on WikiText-2 train.

Each configuration runs in a fresh subprocess (so peak RSS is its own): instances/s and
pieces/s of the whole build (reading, tokenization, instances, masking, writing) and the
peak RSS of the main process and of the largest worker. The 10x run uses the corpus
repeated 10 times, to check that memory does not grow with the corpus (streaming).

    python benchmarks/bench_pretraining_data.py [--spm_model_file=...] [--parallelism=1,2]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from absl import app, flags

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIKITEXT = os.path.join(REPO_ROOT, "..", "shared", "data", "wikitext-2-raw")

FLAGS = flags.FLAGS
flags.DEFINE_string("spm_model_file", None, "Model; default: 8000 pieces trained on valid+test.")
flags.DEFINE_list("parallelism", ["1", "2"], "Worker-process settings to measure.")
flags.DEFINE_list("max_seq_length", ["128", "512"], "Sequence lengths to measure.")
flags.DEFINE_bool("ten_x", True, "Also measure the 10x corpus (memory check).")

_CHILD = """
import json, resource, sys, time
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
if __name__ == "__main__":
    options = BuilderOptions(**json.loads(sys.argv[1]))
    start = time.perf_counter()
    manifest = build_pretraining_data(options)
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


def _measure(options: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=REPO_ROOT)
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(options)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv):
    del argv
    work = tempfile.mkdtemp(prefix="bench_pretraining_data_")
    model = FLAGS.spm_model_file
    if model is None:
        from albert_tf.data.documents import convert_wikitext
        from albert_tf.tokenization.train import train_sentencepiece

        parts = []
        for split in ("valid", "test"):
            parts.append(os.path.join(work, f"{split}.txt"))
            convert_wikitext(os.path.join(WIKITEXT, f"{split}.txt"), parts[-1])
        model = train_sentencepiece(parts, os.path.join(work, "wt8k"), vocab_size=8000)
    train = os.path.join(WIKITEXT, "train.txt")
    ten_x = os.path.join(work, "train_10x.txt")
    if FLAGS.ten_x:
        with open(train, "rb") as source, open(ten_x, "wb") as target:
            data = source.read()
            for _ in range(10):
                target.write(data)
    base = dict(
        spm_model_file=model,
        dupe_factor=1,
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
    print(
        f"{'run':<24}{'instances':>10}{'seconds':>9}{'inst/s':>9}{'pieces/s':>11}"
        f"{'main RSS':>10}{'worker RSS':>12}{'CPU s':>8}{'inst/CPU-s':>12}"
    )
    for name, corpus, parallelism, length in runs:
        output_dir = os.path.join(work, "out")
        row = _measure(
            dict(
                base,
                input_file=corpus,
                output_dir=output_dir,
                parallelism=parallelism,
                max_seq_length=length,
            )
        )
        print(
            f"{name:<24}{row['instances']:>10}{row['seconds']:>9.2f}"
            f"{row['instances'] / row['seconds']:>9.0f}{row['real_tokens'] / row['seconds']:>11.0f}"
            f"{row['main_rss_mb']:>8.0f}MB{row['worker_rss_mb']:>10.0f}MB"
            f"{row['cpu_seconds']:>8.1f}{row['instances'] / row['cpu_seconds']:>12.0f}"
        )


if __name__ == "__main__":
    app.run(main)
