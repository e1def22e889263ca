"""What a training step could reach at best: its matmul work next to this CPU's best GEMM.

A step is mostly matmuls, so (work per step) / (the fastest one GEMM of the model's shapes
runs) bounds how fast any implementation can be. An implementation's achieved rate against
that peak says how much a ratio to it can still grow: at 90% of the peak, nothing can be 1.2x
it without doing less work.
"""

from __future__ import annotations

import time

import tensorflow as tf

from albert_tf.config import AlbertConfig

# The matmul dtype of each policy.
GEMM_DTYPES = {"mixed_bfloat16": "bfloat16", "mixed_float16": "float16"}


def encoder_forward_flops(config: AlbertConfig, seq: int) -> float:
    """Matmul FLOPs of one sequence through the encoder and pooler (2 per multiply-add).

    Embedding projection, attention projections, scores and context, FFN, pooler: every block
    at every position, the work a full-sequence implementation does.
    """
    h, e, i = config.hidden_size, config.embedding_size, config.intermediate_size
    per_layer = seq * (4 * h * h + 2 * h * i) + 2 * seq * seq * h
    return 2 * (seq * e * h + config.num_hidden_layers * per_layer + h * h)


def classifier_step_flops(config: AlbertConfig, seq: int, cls_only: bool = True) -> float:
    """Matmul FLOPs of one sequence through a classifier's training step (forward + backward).

    `cls_only`: as `AlbertClassifier` computes it. The last block computes its [CLS] row alone
    (queries, scores, context, output projection, FFN) and forms no keys or values (the query
    is taken into the input space, per head); the first block's queries, keys and values take
    the E-wide embeddings through the product of two kernels (its per-step cost, under 0.1% at
    batch 32, is left out).
    """
    h, e, i = config.hidden_size, config.embedding_size, config.intermediate_size
    full = 3 * (encoder_forward_flops(config, seq) + 2 * h * 2)  # + the 2-class head
    if not cls_only:
        return full
    last_rows = (seq - 1) * (2 * h * h + 2 * h * i + 2 * seq * h)
    last_keys_values = 2 * seq * h * h - (2 * h * h + 2 * config.num_attention_heads * seq * h)
    last_keys_values += 2 * seq * h  # the one row's scores and context, now per head in H
    first_query_key_value = 3 * seq * (h - e) * h if config.has_embedding_projection else 0
    return full - 3 * 2 * (last_rows + last_keys_values + first_query_key_value)


def gemm_gflops(rows: int, dtype: str, jit_compile: bool = False, repeats: int = 30) -> float:
    """Best GFLOP/s of TensorFlow's [rows, 768] x [768, 3072] matmul (an FFN-sized GEMM)."""
    a = tf.cast(tf.random.normal([rows, 768]), dtype)
    b = tf.cast(tf.random.normal([768, 3072]), dtype)
    matmul = tf.function(tf.matmul, jit_compile=jit_compile)
    matmul(a, b).numpy()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        # Fetch one element: waits for the product without timing a 12 MB host copy.
        matmul(a, b)[0, 0].numpy()
        best = min(best, time.perf_counter() - start)
    return 2 * rows * 768 * 3072 / best / 1e9


def torch_gemm_gflops(rows: int, dtype: str, repeats: int = 30) -> float:
    """The same GEMM in PyTorch (what Hugging Face's layers run on)."""
    import torch

    torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[dtype]
    a, b = torch.randn(rows, 768, dtype=torch_dtype), torch.randn(768, 3072, dtype=torch_dtype)
    a @ b
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * rows * 768 * 3072 / best / 1e9
