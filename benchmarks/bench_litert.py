"""LiteRT on this CPU: file size and batch-1 latency of float32 / float16 / int8 LiteRT models
next to the float32 SavedModel and the Keras model, same weights, one process.

The model is an `AlbertClassifier` (2 classes) on an ALBERT-base-shaped encoder (V=30000,
E=128, H=768, 12 layers, all shared) with random weights, ids in, `[1, seq_length]`:

* `keras`: `model(inputs, training=False)` wrapped in a `tf.function` (traced once);
* `saved_model`: the `serving_default` of the SavedModel (`export_endpoints`, float32);
* `litert_<q>`: `ai_edge_litert` interpreter (XNNPACK, `--num_threads`), signature runner.

Latencies are measured in interleaved rounds (each round times every variant once, in rotating
order, so that load from other processes hits them alike); the table shows the median and the
ratio to the SavedModel, and the size ratio SavedModel / file. Goals (issue 18): int8 at most
1/3.5 of the SavedModel's size, and faster than it at batch 1.

Example (about 3 minutes on 2 cores; heavy, run under the CPU lock):
    python benchmarks/bench_litert.py --rounds=20
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time

import numpy as np
import tensorflow as tf
from absl import app, flags

from albert_tf.config import AlbertConfig
from albert_tf.export.endpoints import export_endpoints
from albert_tf.export.litert.converter import classifier_outputs, ids_model
from albert_tf.export.litert.runner import LiteRtModel
from albert_tf.models import AlbertEncoder
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.models.encoder import INPUT_NAMES

flags.DEFINE_string("preset", "albert_base", "AlbertConfig preset of the encoder shape.")
flags.DEFINE_integer("seq_length", 128, "Sequence length.")
flags.DEFINE_integer("rounds", 20, "Interleaved latency rounds.")
flags.DEFINE_integer("num_threads", 2, "LiteRT interpreter threads (this machine: 2 cores).")
flags.DEFINE_list("quantizations", ["float32", "float16", "int8"], "LiteRT variants.")


def _directory_bytes(path: str) -> int:
    return sum(
        os.path.getsize(os.path.join(root, name))
        for root, _, names in os.walk(path)
        for name in names
    )


def _inputs(seq_length: int, vocab_size: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    ids = rng.integers(5, vocab_size, size=(1, seq_length)).astype(np.int32)
    ids[0, 0], ids[0, -1] = 2, 3
    return {
        "input_word_ids": ids,
        "input_mask": np.ones_like(ids),
        "input_type_ids": np.zeros_like(ids),
    }


def main(argv: list[str]) -> None:
    del argv
    values = flags.FLAGS
    config = AlbertConfig.preset(values.preset)
    tf.keras.utils.set_random_seed(0)
    model = AlbertClassifier(AlbertEncoder(config), num_outputs=2)
    inputs = _inputs(values.seq_length, config.vocab_size)
    tensors = {name: tf.constant(value) for name, value in inputs.items()}
    spec = tf.TensorSpec([1, values.seq_length], tf.int32)

    def serve(input_word_ids, input_mask, input_type_ids):
        features = dict(zip(INPUT_NAMES, (input_word_ids, input_mask, input_type_ids), strict=True))
        return classifier_outputs(model(features, training=False))

    keras_call = tf.function(lambda features: model(features, training=False))
    work_dir = tempfile.mkdtemp(prefix="bench_litert_")
    saved_model_dir = os.path.join(work_dir, "saved_model")
    export_endpoints(saved_model_dir, {"serving_default": (serve, [spec] * 3)}, [model])
    keras_file = os.path.join(work_dir, "model.keras")
    model.save(keras_file)
    signature = tf.saved_model.load(saved_model_dir).signatures["serving_default"]

    runners = {"keras": lambda: keras_call(tensors), "saved_model": lambda: signature(**tensors)}
    sizes = {"keras": os.path.getsize(keras_file), "saved_model": _directory_bytes(saved_model_dir)}
    logits = {"keras": keras_call(tensors).numpy()}
    for quantization in values.quantizations:
        started = time.perf_counter()
        flatbuffer = ids_model(model, values.seq_length, 1, quantization, classifier_outputs)
        print(f"converted {quantization} in {time.perf_counter() - started:.0f} s", flush=True)
        litert = LiteRtModel(flatbuffer, num_threads=values.num_threads)
        name = f"litert_{quantization}"
        runners[name] = lambda litert=litert: litert(**inputs)
        sizes[name] = len(flatbuffer)
        logits[name] = litert(**inputs)["logits"]

    shutil.rmtree(work_dir)
    times: dict[str, list[float]] = {name: [] for name in runners}
    for run in runners.values():  # Warm-up.
        run()
    names = list(runners)
    for round_index in range(values.rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            started = time.perf_counter()
            runners[name]()
            times[name].append(time.perf_counter() - started)

    print(
        f"\n{values.preset} classifier, seq_length {values.seq_length}, batch 1, "
        f"{values.rounds} interleaved rounds, LiteRT threads {values.num_threads}, "
        f"TF threads default ({os.cpu_count()} cores)"
    )
    header = f"{'variant':<16}{'size MB':>9}{'SM/size':>9}{'median ms':>11}{'SM/this':>9}"
    print(header + f"{'max |logit diff| vs keras':>28}")
    sm_size = sizes["saved_model"]
    sm_ms = statistics.median(times["saved_model"]) * 1e3
    for name in names:
        median_ms = statistics.median(times[name]) * 1e3
        diff = float(np.abs(np.asarray(logits.get(name, logits["keras"])) - logits["keras"]).max())
        print(
            f"{name:<16}{sizes[name] / 1e6:>9.2f}{sm_size / sizes[name]:>9.2f}"
            f"{median_ms:>11.1f}{sm_ms / median_ms:>9.2f}{diff:>28.2e}"
        )
    if "litert_int8" in sizes:
        size_ratio = sm_size / sizes["litert_int8"]
        speedup = sm_ms / (statistics.median(times["litert_int8"]) * 1e3)
        print(
            f"\ngoal int8 <= 1/3.5 SavedModel size: {size_ratio:.2f}x smaller "
            f"({'met' if size_ratio >= 3.5 else 'NOT met'}); faster than SavedModel at batch 1: "
            f"{speedup:.2f}x ({'met' if speedup > 1 else 'NOT met'})"
        )


if __name__ == "__main__":
    app.run(main)
