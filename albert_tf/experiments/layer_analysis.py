"""The paper's Figure 2: how much each layer changes the hidden state.

For every layer l (every applied block, in order), with input x_l and output x_{l+1}
(x_0 = the embeddings after the E -> H projection), per token t:

    L2 distance       ||x_{l+1,t} - x_{l,t}||_2
    cosine similarity <x_{l,t}, x_{l+1,t}> / (||x_{l,t}|| ||x_{l+1,t}||)

averaged with equal weight over every real (input_mask = 1) token of every record,
[CLS] and [SEP] included. A converging network has L2 falling and cosine rising with
depth; the paper finds ALBERT's shared layers oscillate instead.

Example:
>>> import numpy as np
>>> states = [np.array([[[1.0, 0.0]]]), np.array([[[0.0, 2.0]]])]
>>> layer_transitions(states, np.ones((1, 1)))
[{'layer': 1, 'l2_distance': 2.23606797749979, 'cosine_similarity': 0.0}]
"""

from __future__ import annotations

import csv
import io
import os

import keras
import numpy as np
from keras import ops

from albert_tf.errors import UserError
from albert_tf.inputs.pretrain_input import pretrain_dataset
from albert_tf.models.encoder import AlbertEncoder


def layer_transitions(hidden_states: list[np.ndarray], input_mask: np.ndarray) -> list[dict]:
    """Per layer (1-based), the token-mean L2 distance and cosine similarity between its
    input `hidden_states[l - 1]` and output `hidden_states[l]` ([B, T, H] each)."""
    mask = np.asarray(input_mask, np.float64) > 0
    rows = []
    for layer in range(1, len(hidden_states)):
        before = np.asarray(hidden_states[layer - 1], np.float64)[mask]
        after = np.asarray(hidden_states[layer], np.float64)[mask]
        distance = np.linalg.norm(after - before, axis=-1)
        norms = np.linalg.norm(before, axis=-1) * np.linalg.norm(after, axis=-1)
        cosine = np.sum(before * after, axis=-1) / np.maximum(norms, 1e-12)
        rows.append(
            {
                "layer": layer,
                "l2_distance": float(distance.mean()),
                "cosine_similarity": float(cosine.mean()),
            }
        )
    return rows


def hidden_states(encoder: AlbertEncoder, features: dict) -> list[np.ndarray]:
    """[x_0, x_1, ..., x_L]: the embeddings and every block's output."""
    mask = features["input_mask"]
    x = encoder.embeddings(features["input_ids"], features["segment_ids"], training=False)
    states = [ops.convert_to_numpy(x)]
    for row in encoder.layer_blocks:
        for block in row:
            x = block(x, mask, training=False)
            states.append(ops.convert_to_numpy(x))
    return states


def analyze_layers(
    encoder: AlbertEncoder,
    pattern: str,
    max_seq_length: int,
    max_predictions_per_seq: int,
    num_records: int = 256,
    batch_size: int = 32,
) -> list[dict]:
    """`layer_transitions` over the first `num_records` records of `pattern` (their
    masked inputs, as the model sees them in pretraining)."""
    dataset = pretrain_dataset(
        pattern,
        global_batch_size=min(batch_size, num_records),
        max_seq_length=max_seq_length,
        max_predictions_per_seq=max_predictions_per_seq,
        is_training=False,
    )
    per_batch_states: list[list[np.ndarray]] = []
    masks = []
    seen = 0
    for features in dataset:
        per_batch_states.append(hidden_states(encoder, features))
        masks.append(features["input_mask"].numpy())
        seen += len(masks[-1])
        if seen >= num_records:
            break
    if not masks:
        raise UserError(f"{pattern}: no records to analyze (fewer than one batch).")
    states = [np.concatenate(layer) for layer in zip(*per_batch_states, strict=True)]
    return layer_transitions(states, np.concatenate(masks))


def layer_transitions_csv(models: dict[str, list[dict]]) -> str:
    """CSV text: one row per (model, layer).

    >>> print(layer_transitions_csv({"a": [{"layer": 1, "l2_distance": 2.0,
    ...                                     "cosine_similarity": 0.5}]}), end="")
    model,layer,l2_distance,cosine_similarity
    a,1,2.0,0.5
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("model", "layer", "l2_distance", "cosine_similarity"))
    for name, rows in models.items():
        for row in rows:
            writer.writerow((name, row["layer"], row["l2_distance"], row["cosine_similarity"]))
    return buffer.getvalue()


def load_encoder(path: str) -> AlbertEncoder:
    """An `encoder.keras` file, or a pretraining workdir holding one."""
    if os.path.isdir(path):
        path = os.path.join(path, "encoder.keras")
    if not os.path.exists(path):
        raise UserError(
            f"no encoder at {path}",
            where="--encoder_files",
            fix="pass encoder.keras files or pretraining output directories",
        )
    try:
        encoder = keras.saving.load_model(path, compile=False)
    except (ValueError, OSError, KeyError, TypeError) as error:  # Not a .keras archive.
        raise UserError(
            f"{path}: not a readable encoder.keras file ({type(error).__name__})",
            where="--encoder_files",
            fix="pass encoder.keras files or pretraining output directories",
        ) from None
    if not isinstance(encoder, AlbertEncoder):
        raise UserError(f"{path} holds a {type(encoder).__name__}, not an AlbertEncoder")
    return encoder
