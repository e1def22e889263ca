"""The data builder with the TFRecord CRC32C from google-crc32c vs NumPy, side by side.

Builds WikiText-2 train (length 128, one worker process, dupe_factor 1) twice in one run,
each in a fresh subprocess: with `tfrecord_framing.crc32c_ragged` (google-crc32c, what the
builder uses) and with it replaced by `crc32c_ragged_numpy` (the former implementation).
Prints seconds and instances/s of each, their ratio, and whether the records are the same
bytes; then the CRC alone over the records of that build.

    python benchmarks/bench_tfrecord_crc.py [--spm_model_file=...] [--input_file=...]
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tempfile
import time

from absl import app, flags

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIKITEXT_TRAIN = os.path.join(REPO_ROOT, "..", "shared", "data", "wikitext-2-raw", "train.txt")

FLAGS = flags.FLAGS
flags.DEFINE_string("input_file", WIKITEXT_TRAIN, "WikiText raw text to build from.")
flags.DEFINE_string("spm_model_file", None, "SentencePiece model; default: trained on valid.")
flags.DEFINE_integer("max_seq_length", 128, "Sequence length of the records.")

# Builds with the CRC named in argv[2] ("google_crc32c" or "numpy"); prints seconds, instances.
_BUILD = """
import json, sys, time
from albert_tf.data import tfrecord_framing
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
if sys.argv[2] == "numpy":
    tfrecord_framing.crc32c_ragged = tfrecord_framing.crc32c_ragged_numpy
options = BuilderOptions(**json.loads(sys.argv[1]))
start = time.perf_counter()
manifest = build_pretraining_data(options)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "instances": manifest["statistics"]["instances"]}))
"""


def _build(options: dict, crc: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", _BUILD, json.dumps(options), crc],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=REPO_ROOT),
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def _records_bytes(output_dir: str) -> bytes:
    return b"".join(open(p, "rb").read() for p in sorted(glob.glob(f"{output_dir}/*.tfrecord")))


def _crc_alone(output_dir: str) -> dict[str, float]:
    """Seconds of each CRC over the data of every record of the build (one call each)."""
    import numpy as np

    from albert_tf.data.tfrecord_framing import crc32c_ragged, crc32c_ragged_numpy

    lengths, parts = [], []
    for path in sorted(glob.glob(f"{output_dir}/*.tfrecord")):
        data = open(path, "rb").read()
        position = 0
        while position < len(data):
            length = int.from_bytes(data[position : position + 8], "little")
            parts.append(data[position + 12 : position + 12 + length])
            lengths.append(length)
            position += 16 + length
    flat = np.frombuffer(b"".join(parts), np.uint8)
    lengths = np.array(lengths, np.int64)
    seconds = {}
    for name, function in (("google_crc32c", crc32c_ragged), ("numpy", crc32c_ragged_numpy)):
        start = time.perf_counter()
        function(flat, lengths)
        seconds[name] = time.perf_counter() - start
    seconds["megabytes"] = len(flat) / 1e6
    return seconds


def main(argv):
    del argv
    with tempfile.TemporaryDirectory(prefix="bench_tfrecord_crc_") as work:
        _run(work)


def _run(work: str) -> None:
    model = FLAGS.spm_model_file
    if model is None:
        from albert_tf.data.documents import convert_wikitext
        from albert_tf.tokenization.train import train_sentencepiece

        valid = os.path.join(work, "valid.txt")
        convert_wikitext(os.path.join(os.path.dirname(WIKITEXT_TRAIN), "valid.txt"), valid)
        model = train_sentencepiece([valid], os.path.join(work, "spm"), vocab_size=8000)
    rows = {}
    for crc in ("google_crc32c", "numpy"):
        options = dict(
            input_file=FLAGS.input_file,
            input_format="wikitext",
            spm_model_file=model,
            output_dir=os.path.join(work, crc),
            max_seq_length=FLAGS.max_seq_length,
            dupe_factor=1,
            parallelism=1,
            num_output_shards=2,
        )
        rows[crc] = _build(options, crc)
    print(f"{'CRC32C':<16}{'instances':>10}{'seconds':>9}{'inst/s':>9}")
    for crc, row in rows.items():
        rate = row["instances"] / row["seconds"]
        print(f"{crc:<16}{row['instances']:>10}{row['seconds']:>9.2f}{rate:>9.0f}")
    ratio = rows["numpy"]["seconds"] / rows["google_crc32c"]["seconds"]
    same = _records_bytes(os.path.join(work, "numpy")) == _records_bytes(
        os.path.join(work, "google_crc32c")
    )
    print(f"builder speed-up with google_crc32c: {ratio:.2f}x; same record bytes: {same}")
    alone = _crc_alone(os.path.join(work, "google_crc32c"))
    print(
        f"CRC alone over {alone['megabytes']:.1f} MB of records: google_crc32c "
        f"{alone['google_crc32c']:.3f} s, numpy {alone['numpy']:.3f} s "
        f"({alone['numpy'] / alone['google_crc32c']:.0f}x)"
    )


if __name__ == "__main__":
    app.run(main)
