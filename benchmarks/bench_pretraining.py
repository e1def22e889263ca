"""Pretraining throughput: albert_tf's train step against keras-hub's ALBERT, in one run.

Measures optimizer steps/s and sequences/s of ALBERT-base pretraining (MLM +
SOP) at batch 8, length 128, 20 predictions, for each precision and XLA
setting, and prints both implementations and their ratio side by side.

    python benchmarks/bench_pretraining.py                      # all settings
    python benchmarks/bench_pretraining.py --precisions float32 --xla no --rounds 3
    python benchmarks/bench_pretraining.py --inter-op-threads 1  # thread settings

Fairness:
  * the same work: keras-hub's `AlbertBackbone` + `MaskedLMHead` (tied to the
    token embedding) gets a 2-way SOP `Dense` on its pooled output, so both
    compute MLM + SOP on the same synthetic batch (already in memory);
  * the same optimizer: `create_optimizer(--optimizer)` (LAMB by default, the
    ALBERT recipe; keras-hub has no pretraining task, so it gets ours too);
  * the same process, thread pools and dtype policies; every setting is
    compiled and warmed up first, then the timed steps are interleaved round
    robin (one step of each setting per round), so a change in machine load
    hits all settings alike; the figures are medians over the rounds, and the
    ratios are given for the medians and for the fastest steps.

Roofline: the run also times one [1024, 768] x [768, 3072] GEMM per precision
(graph and XLA) and prints the model's FLOPs per step, so the achieved
GFLOP/s of each implementation can be read against what this CPU's matmuls
reach at best: a ratio to keras-hub is bounded by how far below that peak
keras-hub already runs.

Precision: the table tells which policy is fastest on this device. On CPU the
header lists the matmul-relevant flags: oneDNN runs bf16 GEMMs on AMX when the
CPU exposes `amx_bf16`; with `avx512_bf16` alone they were slower than float32
on the machine we measured (see `MATMUL_CPU_FLAGS`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import keras
import numpy as np
import tensorflow as tf
from peers import keras_hub_backbone
from roofline import GEMM_DTYPES, encoder_forward_flops, gemm_gflops
from timing import interleaved_seconds

from albert_tf.config import AlbertConfig
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
from albert_tf.inputs.pretrain_input import pretrain_dataset
from albert_tf.models.chains import use_chains
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.runtime import Runtime
from albert_tf.training.optimizer_all_reduce import disable_optimizer_all_reduce
from albert_tf.training.optimizers import create_optimizer
from albert_tf.training.pretrain_step import (
    make_replica_train_step,
    make_train_function,
)

BATCH, SEQ, PREDICTIONS = 8, 128, 20
PRECISIONS = ("float32", "mixed_bfloat16")
# `run_one_step()` runs one optimizer update and waits for its result.
StepRunner = Callable[[], None]


def synthetic_batch(
    vocab_size: int, seed: int = 0, batch: int = BATCH, length: int = SEQ
) -> dict[str, tf.Tensor]:
    """One pretraining batch in the TFRecord schema, all positions real."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(5, vocab_size, size=(batch, length))
    return {
        "input_ids": tf.constant(ids, tf.int32),
        "input_mask": tf.ones((batch, length), tf.int32),
        "segment_ids": tf.constant(
            np.arange(length)[None].repeat(batch, 0) >= length // 2, tf.int32
        ),
        "masked_lm_positions": tf.constant(
            np.sort(rng.choice(np.arange(1, length), (batch, PREDICTIONS)), axis=1), tf.int32
        ),
        "masked_lm_ids": tf.constant(rng.integers(5, vocab_size, (batch, PREDICTIONS)), tf.int32),
        "masked_lm_weights": tf.ones((batch, PREDICTIONS), tf.float32),
        "next_sentence_labels": tf.constant(rng.integers(0, 2, (batch, 1)), tf.int32),
    }


def _optimizer(name: str) -> keras.optimizers.Optimizer:
    return create_optimizer(name, 1e-4, num_train_steps=1000, num_warmup_steps=10)


def albert_tf_step(
    config: AlbertConfig, precision: str, jit_compile: bool, optimizer_name: str
) -> StepRunner:
    """albert_tf's real pretraining step (`pretrain.py` uses the same functions)."""
    keras.utils.set_random_seed(0)
    model = AlbertPretrainer(AlbertEncoder(config, dtype=precision))
    use_chains(model, Runtime.for_machine().chains)  # As `albert-tf pretrain` trains.
    optimizer = _optimizer(optimizer_name)
    optimizer.build(model.trainable_variables)
    disable_optimizer_all_reduce(optimizer)
    step = make_replica_train_step(model, optimizer, BATCH, 1, jit_compile)
    train = make_train_function(tf.distribute.get_strategy(), step)
    iterator = iter(tf.data.Dataset.from_tensors(synthetic_batch(config.vocab_size)).repeat())
    one = tf.constant(1)
    return lambda: train(iterator, one).numpy()


def keras_hub_train_step(
    config: AlbertConfig, precision: str, jit_compile: bool, optimizer_name: str, length: int = SEQ
) -> tuple[Callable[[dict], tf.Tensor], list]:
    """keras-hub's AlbertBackbone + MaskedLMHead + a SOP Dense, same loss terms.

    Returns `(step(features) -> loss, every variable the step reads)`.
    """
    import keras_hub

    keras.utils.set_random_seed(0)
    backbone = keras_hub_backbone(config, precision, dropout=config.hidden_dropout_prob)
    mlm_head = keras_hub.layers.MaskedLMHead(
        vocabulary_size=config.vocab_size,
        token_embedding=backbone.token_embedding,
        activation="gelu",
        dtype=precision,
    )
    sop_head = keras.layers.Dense(2, dtype=precision)
    mlm_head.build((None, length, config.hidden_size), (None, PREDICTIONS))
    sop_head.build((None, config.hidden_size))
    layers = backbone.variables + mlm_head.variables + sop_head.variables
    variables = (
        backbone.trainable_variables + mlm_head.trainable_variables + sop_head.trainable_variables
    )
    variables = list({id(v): v for v in variables}.values())  # the tied embedding once
    optimizer = _optimizer(optimizer_name)
    optimizer.build(variables)

    def cross_entropy(labels, logits):
        return tf.reduce_mean(
            keras.losses.sparse_categorical_crossentropy(
                labels, tf.cast(logits, tf.float32), from_logits=True
            )
        )

    @tf.function(jit_compile=jit_compile)
    def train_step(batch):
        inputs = {
            "token_ids": batch["input_ids"],
            "padding_mask": batch["input_mask"],
            "segment_ids": batch["segment_ids"],
        }
        with tf.GradientTape() as tape:
            outputs = backbone(inputs, training=True)
            mlm_logits = mlm_head(
                outputs["sequence_output"], mask_positions=batch["masked_lm_positions"]
            )
            loss = cross_entropy(batch["masked_lm_ids"], mlm_logits) + cross_entropy(
                tf.reshape(batch["next_sentence_labels"], [-1]),
                sop_head(outputs["pooled_output"]),
            )
        optimizer.apply(tape.gradient(loss, variables), variables)
        return loss

    all_variables = list({id(v): v for v in layers + optimizer.variables}.values())
    return train_step, all_variables


def keras_hub_step(
    config: AlbertConfig, precision: str, jit_compile: bool, optimizer_name: str
) -> StepRunner:
    """`keras_hub_train_step` on `synthetic_batch`."""
    train_step, _ = keras_hub_train_step(config, precision, jit_compile, optimizer_name)
    batch = synthetic_batch(config.vocab_size)
    return lambda: train_step(batch).numpy()


IMPLEMENTATIONS = {"albert_tf": albert_tf_step, "keras_hub": keras_hub_step}
# CPU flags that decide which precision has the fastest matmuls: oneDNN runs
# bf16 GEMMs on AMX tiles when `amx_bf16` is there; with only `avx512_bf16`
# they are no faster than float32 (slower on the machine we measured).
MATMUL_CPU_FLAGS = ("amx_bf16", "amx_tile", "avx512_bf16", "avx512_fp16", "avx512f")


def cpu_matmul_flags() -> str:
    """Which of `MATMUL_CPU_FLAGS` the CPU reports (Linux `/proc/cpuinfo`)."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = next(line for line in cpuinfo if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return "CPU flags unknown (no /proc/cpuinfo)"
    return ", ".join(f"{flag} {'yes' if flag in flags else 'no'}" for flag in MATMUL_CPU_FLAGS)


def training_flops(config: AlbertConfig) -> float:
    """FLOPs of one MLM + SOP training step on full sequences (3x the forward).

    The encoder's matmuls (`encoder_forward_flops`) and the MLM head at the masked positions.
    albert_tf computes less in the last layer; this is the work a full-sequence implementation
    does, the yardstick for both.
    """
    h, e, v = config.hidden_size, config.embedding_size, config.vocab_size
    head = 2 * PREDICTIONS * (h * e + e * v)
    return 3 * BATCH * (encoder_forward_flops(config, SEQ) + head)


def input_pipeline_examples_per_second(dynamic_masking: bool) -> float:
    """The pretraining input pipeline alone (records -> shuffled, parsed batches), examples/s."""
    import tempfile

    from albert_tf.tokenization import train_sentencepiece

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sample = os.path.join(root, "data", "sample.txt")
    with tempfile.TemporaryDirectory() as workdir:
        spm = train_sentencepiece([sample], os.path.join(workdir, "spm"), vocab_size=2000)
        records = os.path.join(workdir, "records")
        options = BuilderOptions(
            input_file=sample,
            spm_model_file=spm,
            output_dir=records,
            max_seq_length=SEQ,
            max_predictions_per_seq=PREDICTIONS,
            dupe_factor=10,
        )
        build_pretraining_data(options)
        dataset = pretrain_dataset(
            os.path.join(records, "*.tfrecord"),
            BATCH,
            SEQ,
            PREDICTIONS,
            is_training=True,
            dynamic_masking=dynamic_masking,
            vocab_size=2000,
        )
        iterator = iter(dataset)
        next(iterator)  # Fills the shuffle buffer.
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < 3.0:
            next(iterator)
            count += BATCH
        return count / (time.perf_counter() - start)


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed steps per setting")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps per setting first")
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument(
        "--precisions", default=",".join(PRECISIONS), help="comma list of dtype policies"
    )
    parser.add_argument("--xla", default="no,yes", help="comma list of no/yes (jit_compile)")
    parser.add_argument("--implementations", default=",".join(IMPLEMENTATIONS))
    parser.add_argument("--optimizer", default="lamb", choices=("lamb", "adamw"))
    parser.add_argument("--inter-op-threads", type=int, default=0, help="0: TensorFlow default")
    parser.add_argument("--intra-op-threads", type=int, default=0, help="0: TensorFlow default")
    return parser.parse_args()


def main() -> None:
    args = _parse_args()
    # Thread pools must be set before TensorFlow runs its first op.
    tf.config.threading.set_inter_op_parallelism_threads(args.inter_op_threads)
    tf.config.threading.set_intra_op_parallelism_threads(args.intra_op_threads)
    config = AlbertConfig.preset(args.preset, hidden_dropout_prob=0.0)
    implementations = args.implementations.split(",")
    if "keras_hub" in implementations:
        try:
            import keras_hub  # noqa: F401
        except ImportError:
            print("note: keras_hub is not installed; it is skipped.")
            implementations.remove("keras_hub")

    settings = {}
    for implementation in implementations:
        for precision in args.precisions.split(","):
            for xla in args.xla.split(","):
                settings[(implementation, precision, xla)] = IMPLEMENTATIONS[implementation](
                    config, precision, xla == "yes", args.optimizer
                )
    device = "GPU" if tf.config.list_logical_devices("GPU") else "CPU"
    threads = (
        tf.config.threading.get_inter_op_parallelism_threads(),
        tf.config.threading.get_intra_op_parallelism_threads(),
    )
    print(
        f"{args.preset}, batch {BATCH}, length {SEQ}, {PREDICTIONS} predictions, MLM + SOP, "
        f"{args.optimizer}, on {device}; inter/intra-op threads {threads} (0 = default); "
        f"{args.warmup} warm-up steps, median of {args.rounds} interleaved rounds"
    )
    if device == "CPU":
        print(f"CPU: {cpu_matmul_flags()}")
    seconds = interleaved_seconds(
        {" ".join(key): runner for key, runner in settings.items()}, args.warmup, args.rounds
    )
    median = {key: statistics.median(seconds[" ".join(key)]) for key in settings}
    _print_table(median, seconds)
    _print_roofline(median, training_flops(config), args.precisions.split(","))
    consumed = max(BATCH / m for key, m in median.items() if key[0] == "albert_tf")
    for dynamic in (False, True):
        produced = input_pipeline_examples_per_second(dynamic)
        print(
            f"input pipeline alone ({'dynamic' if dynamic else 'static'} masking, records of "
            f"data/sample.txt): {produced:.0f} examples/s = {produced / consumed:.0f}x the best "
            f"albert_tf step's {consumed:.2f} sequences/s (goal 5x)"
        )


def _ratio(seconds: dict, key: tuple, statistic: Callable) -> str:
    """keras_hub's seconds / albert_tf's at the same setting, e.g. '1.06x'."""
    implementation, precision, xla = key
    other = seconds.get(" ".join(("keras_hub", precision, xla)))
    if implementation != "albert_tf" or other is None:
        return ""
    return f"{statistic(other) / statistic(seconds[' '.join(key)]):.2f}x"


def _print_table(median: dict, seconds: dict) -> None:
    """Per setting: median throughput, the fastest step, and the ratio to keras_hub.

    The median is the headline; the minimum is the least disturbed step, which is
    the better estimate of the intrinsic cost when other processes load the machine.
    """
    print(
        f"{'precision':<15} {'XLA':<4} {'implementation':<10} {'steps/s':>8} {'seq/s':>7} "
        f"{'min..max s/step':>16} {'ratio(median)':>14} {'ratio(min)':>11}"
    )
    for key in median:
        implementation, precision, xla = key
        spread = seconds[" ".join(key)]
        print(
            f"{precision:<15} {xla:<4} {implementation:<14} {1 / median[key]:>8.3f} "
            f"{BATCH / median[key]:>7.2f} {min(spread):>7.2f}..{max(spread):<7.2f} "
            f"{_ratio(seconds, key, statistics.median):>14} {_ratio(seconds, key, min):>11}"
        )
    best = {}
    for (implementation, precision, xla), value in median.items():
        if value < best.get(implementation, (float("inf"),))[0]:
            best[implementation] = (value, precision, xla)
    for implementation, (value, precision, xla) in best.items():
        print(f"best {implementation}: {1 / value:.3f} steps/s ({precision}, XLA {xla})")
    if len(best) == 2:
        speedup = best["keras_hub"][0] / best["albert_tf"][0]
        print(f"best albert_tf / best keras_hub (medians): {speedup:.2f}x")


def _print_roofline(median: dict, flops: float, precisions: list[str]) -> None:
    """Achieved GFLOP/s per setting next to the best GEMM this device runs."""
    print(f"model work: {flops / 1e9:.0f} GFLOP per step (full-sequence count)")
    dtypes = [GEMM_DTYPES.get(precision, precision) for precision in precisions]
    gemm = {
        (dtype, xla): gemm_gflops(BATCH * SEQ, dtype, xla == "yes")
        for dtype in dtypes
        for xla in ("no", "yes")
    }
    print(
        "GEMM [1024x768]x[768x3072]: "
        + ", ".join(f"{dtype} XLA {xla} {value:.0f}" for (dtype, xla), value in gemm.items())
        + " GFLOP/s"
    )
    peak = max(gemm.values())
    for key, seconds in median.items():
        achieved = flops / seconds / 1e9
        print(f"  {' '.join(key)}: {achieved:.0f} GFLOP/s ({achieved / peak:.0%} of best GEMM)")
    hub = [seconds for key, seconds in median.items() if key[0] == "keras_hub"]
    if hub:
        needed = 1.3 * flops / min(hub) / 1e9
        print(
            f"1.3x best keras_hub = {needed:.0f} GFLOP/s of this work "
            f"({needed / peak:.0%} of best GEMM)"
        )


if __name__ == "__main__":
    main()
