"""Serving throughput: the exported SavedModel's `serving_default` next to the Keras encoder.

Same weights, same int32 inputs `[batch, seq_length]`, three ways, in one process:

* `saved_model`: `tf.saved_model.load(export_dir).signatures["serving_default"]`;
* `keras_tf_function`: `tf.function(lambda inputs: encoder(inputs, training=False))`;
* `keras_eager`: `encoder(inputs, training=False)`.

The modes are measured in interleaved rounds (so that load from other processes hits them alike)
and each figure is the median over rounds of sequences per second. The table shows the ratio
SavedModel / Keras tf.function (>= 1: the SavedModel is no slower).

The encoder needs a SentencePiece model of its vocabulary size to be exported; by default one
is trained on data/sample.txt (`--vocab_size` pieces), so the vocabulary is smaller than ALBERT's
30k (it only changes the embedding lookup, not the Transformer's cost).

Example:
    python benchmarks/bench_encoder_serving.py --preset=albert_base --batch_sizes=1,32 \
        --seq_length=128
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

import numpy as np
import sentencepiece as spm
import tensorflow as tf
from absl import app, flags

from albert_tf.config import AlbertConfig
from albert_tf.export.saved_model import export_saved_model
from albert_tf.models import AlbertEncoder
from albert_tf.runtime import Runtime
from albert_tf.tokenization import train_sentencepiece

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

flags.DEFINE_string("preset", "albert_base", "AlbertConfig preset of the encoder shape.")
flags.DEFINE_integer("num_hidden_layers", 0, "Override the preset's layer count (0: keep).")
flags.DEFINE_integer("vocab_size", 1000, "Pieces of the SentencePiece model trained here.")
flags.DEFINE_string("spm_model_file", None, "Use this SentencePiece model instead (its size).")
flags.DEFINE_list("batch_sizes", ["1", "32"], "Batch sizes to measure.")
flags.DEFINE_integer("seq_length", 128, "Sequence length.")
flags.DEFINE_integer("rounds", 5, "Interleaved measurement rounds.")
flags.DEFINE_float("seconds_per_measure", 1.0, "Minimum time of one measurement.")


def _sequences_per_second(function, inputs, batch_size: int, min_seconds: float) -> float:
    calls, start = 0, time.perf_counter()
    while True:
        outputs = function(inputs)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            break
    # Pulling one value to host makes sure the work has finished (GPU).
    np.asarray(outputs["pooled_output"][0, 0])
    return calls * batch_size / (time.perf_counter() - start)


def _random_inputs(batch_size: int, seq_length: int, vocab_size: int) -> dict[str, tf.Tensor]:
    rng = np.random.default_rng(0)
    return {
        "input_word_ids": tf.constant(
            rng.integers(5, vocab_size, (batch_size, seq_length)), tf.int32
        ),
        "input_mask": tf.ones((batch_size, seq_length), tf.int32),
        "input_type_ids": tf.zeros((batch_size, seq_length), tf.int32),
    }


def run_benchmark(
    encoder: AlbertEncoder,
    export_dir: str,
    batch_sizes: list[int],
    seq_length: int,
    rounds: int,
    min_seconds: float,
) -> list[dict[str, float]]:
    """Returns one row per batch size: sequences/s of each mode and the ratio."""
    signature = tf.saved_model.load(export_dir).signatures["serving_default"]
    keras_function = tf.function(lambda inputs: encoder(inputs, training=False))
    modes = {
        "saved_model": lambda inputs: signature(**inputs),
        "keras_tf_function": keras_function,
        "keras_eager": lambda inputs: encoder(inputs, training=False),
    }
    rows = []
    for batch_size in batch_sizes:
        inputs = _random_inputs(batch_size, seq_length, encoder.config.vocab_size)
        expected = keras_function(inputs)["pooled_output"].numpy()
        np.testing.assert_allclose(
            signature(**inputs)["pooled_output"].numpy(), expected, atol=1e-4, rtol=0
        )
        for function in modes.values():  # Warm-up: tracing, allocations.
            function(inputs)
        measured = {name: [] for name in modes}
        for _ in range(rounds):
            for name, function in modes.items():
                measured[name].append(
                    _sequences_per_second(function, inputs, batch_size, min_seconds)
                )
        row = {"batch_size": batch_size, **{k: statistics.median(v) for k, v in measured.items()}}
        row["ratio"] = row["saved_model"] / row["keras_tf_function"]
        rows.append(row)
    return rows


def format_table(rows: list[dict[str, float]], seq_length: int) -> str:
    header = (
        f"{'batch':>5} {'seq':>4} {'SavedModel':>12} {'Keras tf.function':>18} "
        f"{'Keras eager':>12} {'SavedModel/tf.function':>23}"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row['batch_size']:>5} {seq_length:>4} {row['saved_model']:>12.1f} "
            f"{row['keras_tf_function']:>18.1f} {row['keras_eager']:>12.1f} {row['ratio']:>23.3f}"
        )
    return "\n".join(lines) + "\n(sequences/s, median of interleaved rounds)"


def main(argv: list[str]) -> None:
    del argv
    values = flags.FLAGS
    with tempfile.TemporaryDirectory() as scratch:
        spm_model_file = values.spm_model_file or train_sentencepiece(
            [os.path.join(REPO_ROOT, "data", "sample.txt")],
            os.path.join(scratch, "spm"),
            vocab_size=values.vocab_size,
        )
        vocab_size = spm.SentencePieceProcessor(model_file=spm_model_file).get_piece_size()
        overrides = {"vocab_size": vocab_size}
        if values.num_hidden_layers:
            overrides["num_hidden_layers"] = values.num_hidden_layers
        config = AlbertConfig.preset(values.preset, **overrides)
        encoder = AlbertEncoder(config)
        export_dir = export_saved_model(
            os.path.join(scratch, "export"),
            encoder,
            spm_model_file,
            seq_length=values.seq_length,
            runtime=Runtime.plain(),
        )
        rows = run_benchmark(
            encoder,
            export_dir,
            [int(size) for size in values.batch_sizes],
            values.seq_length,
            values.rounds,
            values.seconds_per_measure,
        )
    device = "GPU" if tf.config.list_physical_devices("GPU") else "CPU"
    shape = f"{config.num_hidden_layers} layers, hidden {config.hidden_size}"
    print(f"{values.preset} ({shape}) on {device}")
    print(format_table(rows, values.seq_length))


if __name__ == "__main__":
    app.run(main)
