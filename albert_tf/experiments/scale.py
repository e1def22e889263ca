"""`ExperimentScale`: how big every cell of an experiment is (shape, length, steps)."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class ExperimentScale:
    """Model shape and budget shared by every cell of an experiment.

    The paper's embedding sizes (64, 128, 256 at H = 768) map to `embedding_sizes`;
    its default E = 128 maps to `embedding_size`. `num_train_steps` is the budget of one
    cell; a preset may scale it (`Preset.steps_factor`) so that the whole preset fits the
    scale's time. Eval records: the first `probe_records` held-out records fit the linear
    probes, the next `eval_records` give every reported metric.

    Example:
    >>> SCALES["cpu"].hidden_size
    64
    >>> SCALES["cpu"].replace(num_train_steps=10).num_train_steps
    10
    """

    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    embedding_size: int
    embedding_sizes: tuple[int, ...]
    max_seq_length: int
    max_predictions_per_seq: int
    train_batch_size: int
    num_train_steps: int
    learning_rate: float
    num_warmup_steps: int
    save_checkpoints_steps: int
    log_every_steps: int
    dupe_factor: int
    eval_records: int
    probe_records: int
    jit_compile: bool = True
    seed: int = 12345

    def replace(self, **changes: Any) -> ExperimentScale:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> ExperimentScale:
        values = dict(values)
        values["embedding_sizes"] = tuple(values["embedding_sizes"])
        return cls(**values)


SCALES: dict[str, ExperimentScale] = {
    # Tests: seconds per cell.
    "tiny": ExperimentScale(
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        embedding_size=8,
        embedding_sizes=(4, 8, 12),
        max_seq_length=32,
        max_predictions_per_seq=5,
        train_batch_size=8,
        num_train_steps=40,
        learning_rate=1e-3,
        num_warmup_steps=4,
        save_checkpoints_steps=10,
        log_every_steps=10,
        dupe_factor=1,
        eval_records=64,
        probe_records=64,
        jit_compile=False,
    ),
    # On 2 CPU cores: sentence_objective (3 cells x 1000 steps) and sharing (8 cells x 250
    # steps) in about 10 minutes each. LAMB lr 1e-2 was the best rate of the WikiText-2
    # recipe (docs/pretraining_wikitext2.md); WikiText-2 train gives ~38k records per dupe at
    # length 64, more than one epoch of 1000 steps of 32.
    "cpu": ExperimentScale(
        hidden_size=64,
        num_hidden_layers=4,
        num_attention_heads=2,
        embedding_size=16,
        embedding_sizes=(8, 16, 32),
        max_seq_length=64,
        max_predictions_per_seq=10,
        train_batch_size=32,
        num_train_steps=1000,
        learning_rate=1e-2,
        num_warmup_steps=100,
        save_checkpoints_steps=250,
        log_every_steps=50,
        dupe_factor=1,
        eval_records=2000,
        probe_records=1000,
    ),
    # One accelerator: ALBERT-base's shape at length 128 (hours per preset).
    "accelerator": ExperimentScale(
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        embedding_size=128,
        embedding_sizes=(64, 128, 256),
        max_seq_length=128,
        max_predictions_per_seq=20,
        train_batch_size=256,
        num_train_steps=20_000,
        learning_rate=1.76e-3,
        num_warmup_steps=1000,
        save_checkpoints_steps=2000,
        log_every_steps=200,
        dupe_factor=5,
        eval_records=10_000,
        probe_records=5000,
    ),
}
