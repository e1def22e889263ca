"""`analyze_encoder_files`: the layer analysis of several saved encoders, as CSV and PNG."""

from __future__ import annotations

import os

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.experiments.layer_analysis import (
    analyze_layers,
    layer_transitions_csv,
    load_encoder,
)
from albert_tf.experiments.plots import plot_layer_transitions
from albert_tf.inputs.pretrain_input import check_records
from albert_tf.output_lock import output_lock


def analyze_encoder_files(
    paths: list[str],
    names: list[str],
    input_file: str,
    max_seq_length: int,
    max_predictions_per_seq: int,
    num_records: int,
    output_dir: str,
) -> dict[str, list[dict]]:
    """Analyzes every encoder and writes `layer_transitions.csv` and `.png`."""
    if names and len(names) != len(paths):
        raise UserError(
            f"{len(names)} names for {len(paths)} encoders", where="--names", fix="give one each"
        )
    with output_lock(output_dir, directory=True):  # Also refuses an unwritable output first.
        models = {}
        for name, path in zip(names or paths, paths, strict=True):
            encoder = load_encoder(path)
            # Names the file on truncated records or another length, before any graph runs.
            check_records(
                input_file, max_seq_length, max_predictions_per_seq, encoder.config.vocab_size
            )
            models[name] = analyze_layers(
                encoder, input_file, max_seq_length, max_predictions_per_seq, num_records
            )
        os.makedirs(output_dir, exist_ok=True)
        atomic_write_text(
            os.path.join(output_dir, "layer_transitions.csv"), layer_transitions_csv(models)
        )
        plot_layer_transitions(models, os.path.join(output_dir, "layer_transitions.png"))
    return models
