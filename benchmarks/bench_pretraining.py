"""Pretraining throughput: albert_tf's train step, and keras-hub's ALBERT when installed.

Measures optimizer steps/s and sequences/s of ALBERT-base (MLM + SOP, LAMB) at
batch 8, length 128, 20 predictions, for float32 and mixed_bfloat16, with and
without XLA, on the default device, and prints a table. The data are synthetic
batches already in memory, so the figures are those of the step alone.

    python benchmarks/bench_pretraining.py --steps 3 --warmup 1

keras-hub's `AlbertBackbone` + `MaskedLMHead` (MLM only: keras-hub has no SOP
head) is measured the same way when `keras_hub` is importable; otherwise a note
says it was skipped.
"""

from __future__ import annotations

import argparse
import time

import keras
import numpy as np
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.training.optimizers import create_optimizer
from albert_tf.training.pretrain_step import (
    disable_optimizer_all_reduce,
    make_replica_train_step,
    make_train_function,
)

BATCH, SEQ, PREDICTIONS = 8, 128, 20


def synthetic_batch(vocab_size: int, seed: int = 0) -> dict[str, tf.Tensor]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(5, vocab_size, size=(BATCH, SEQ))
    return {
        "input_ids": tf.constant(ids, tf.int32),
        "input_mask": tf.ones((BATCH, SEQ), tf.int32),
        "segment_ids": tf.constant(np.arange(SEQ)[None].repeat(BATCH, 0) >= SEQ // 2, tf.int32),
        "masked_lm_positions": tf.constant(
            np.sort(rng.choice(np.arange(1, SEQ), (BATCH, PREDICTIONS)), axis=1), tf.int32
        ),
        "masked_lm_ids": tf.constant(rng.integers(5, vocab_size, (BATCH, PREDICTIONS)), tf.int32),
        "masked_lm_weights": tf.ones((BATCH, PREDICTIONS), tf.float32),
        "next_sentence_labels": tf.constant(rng.integers(0, 2, BATCH), tf.int32),
    }


def time_steps(run_one_step, warmup: int, steps: int) -> float:
    """Seconds per step after `warmup` steps (tracing and compilation)."""
    for _ in range(warmup):
        run_one_step()
    start = time.perf_counter()
    for _ in range(steps):
        run_one_step()
    return (time.perf_counter() - start) / steps


def bench_albert_tf(config: AlbertConfig, precision: str, jit_compile: bool, warmup, steps):
    keras.utils.set_random_seed(0)
    model = AlbertPretrainer(AlbertEncoder(config, dtype=precision))
    optimizer = create_optimizer("lamb", 1e-4, num_train_steps=1000, num_warmup_steps=10)
    optimizer.build(model.trainable_variables)
    disable_optimizer_all_reduce(optimizer)
    step = make_replica_train_step(model, optimizer, BATCH, 1, jit_compile)
    train = make_train_function(tf.distribute.get_strategy(), step)
    iterator = iter(tf.data.Dataset.from_tensors(synthetic_batch(config.vocab_size)).repeat())
    one = tf.constant(1)
    return time_steps(lambda: train(iterator, one).numpy(), warmup, steps)


def bench_keras_hub(config: AlbertConfig, precision: str, jit_compile: bool, warmup, steps):
    import keras_hub

    keras.config.set_dtype_policy(precision)
    try:
        backbone = keras_hub.models.AlbertBackbone(
            vocabulary_size=config.vocab_size,
            num_layers=config.num_hidden_layers,
            num_heads=config.num_attention_heads,
            num_groups=config.num_hidden_groups,
            num_inner_repetitions=config.inner_group_num,
            embedding_dim=config.embedding_size,
            hidden_dim=config.hidden_size,
            intermediate_dim=config.intermediate_size,
            dropout=0.0,
            max_sequence_length=config.max_position_embeddings,
        )
        head = keras_hub.layers.MaskedLMHead(
            vocabulary_size=config.vocab_size,
            token_embedding=backbone.token_embedding,
            activation="gelu",
        )
    finally:
        keras.config.set_dtype_policy("float32")
    optimizer = create_optimizer("lamb", 1e-4, num_train_steps=1000, num_warmup_steps=10)
    batch = synthetic_batch(config.vocab_size)
    inputs = {
        "token_ids": batch["input_ids"],
        "padding_mask": batch["input_mask"],
        "segment_ids": batch["segment_ids"],
    }

    @tf.function(jit_compile=jit_compile)
    def train_step():
        with tf.GradientTape() as tape:
            sequence = backbone(inputs, training=True)["sequence_output"]
            logits = tf.cast(head(sequence, mask_positions=batch["masked_lm_positions"]), "float32")
            loss = tf.reduce_mean(
                keras.losses.sparse_categorical_crossentropy(
                    batch["masked_lm_ids"], logits, from_logits=True
                )
            )
        variables = backbone.trainable_variables + head.trainable_variables
        optimizer.apply(tape.gradient(loss, variables), variables)
        return loss

    return time_steps(lambda: train_step().numpy(), warmup, steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10, help="timed steps per setting")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    parser.add_argument("--preset", default="albert_base")
    args = parser.parse_args()
    config = AlbertConfig.preset(args.preset, hidden_dropout_prob=0.0)

    implementations = {"albert_tf": bench_albert_tf}
    try:
        import keras_hub  # noqa: F401

        implementations["keras_hub (MLM only)"] = bench_keras_hub
    except ImportError:
        print("note: keras_hub is not installed; its AlbertBackbone + MaskedLMHead is skipped.")

    device = "GPU" if tf.config.list_logical_devices("GPU") else "CPU"
    print(f"{args.preset}, batch {BATCH}, length {SEQ}, {PREDICTIONS} predictions, on {device}")
    print(f"{'implementation':<22} {'precision':<15} {'XLA':<4} {'steps/s':>9} {'sequences/s':>12}")
    for name, bench in implementations.items():
        for precision in ("float32", "mixed_bfloat16"):
            for jit_compile in (False, True):
                seconds = bench(config, precision, jit_compile, args.warmup, args.steps)
                print(
                    f"{name:<22} {precision:<15} {'yes' if jit_compile else 'no':<4} "
                    f"{1 / seconds:>9.3f} {BATCH / seconds:>12.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
