"""`Cell`: one configuration of an ablation, trained and evaluated as its own run."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from albert_tf.config import AlbertConfig
from albert_tf.experiments.scale import ExperimentScale

SENTENCE_OBJECTIVES = ("none", "nsp", "sop")


@dataclasses.dataclass(frozen=True)
class Cell:
    """One row of an ablation table.

    `embedding_size` is the size used at the experiment's scale; `paper_embedding_size`
    the one it stands for in the paper (ALBERT-base shape, H = 768), used to look up the
    paper's figures and to count parameters at the paper's shape.

    Example:
    >>> from albert_tf.experiments.scale import SCALES
    >>> cell = Cell("sop", "sop", "all_shared", 16, 128)
    >>> cell.albert_config(SCALES["cpu"], vocab_size=8000).embedding_size
    16
    """

    name: str
    sentence_objective: str
    sharing: str
    embedding_size: int
    paper_embedding_size: int
    # Whole-word units of its training records (`albert-tf data --word_segmenter`).
    word_segmenter: str = "none"

    def __post_init__(self):
        if self.sentence_objective not in SENTENCE_OBJECTIVES:
            raise ValueError(
                f"Cell {self.name}: sentence_objective {self.sentence_objective!r} is not one "
                f"of {SENTENCE_OBJECTIVES}."
            )

    def albert_config(self, scale: ExperimentScale, vocab_size: int) -> AlbertConfig:
        return AlbertConfig(
            vocab_size=vocab_size,
            embedding_size=self.embedding_size,
            hidden_size=scale.hidden_size,
            num_hidden_layers=scale.num_hidden_layers,
            num_attention_heads=scale.num_attention_heads,
            intermediate_size=4 * scale.hidden_size,
            max_position_embeddings=scale.max_seq_length,
            sharing=self.sharing,
        )

    @property
    def record_objective(self) -> str:
        """Which records it trains on: NSP records for NSP, SOP records otherwise (MLM-only
        cells read SOP records and ignore their labels)."""
        return "nsp" if self.sentence_objective == "nsp" else "sop"

    @property
    def records_name(self) -> str:
        """Its training records' folder under `data/`: the objective's, `_<segmenter>` added
        when they are built with a word segmenter.

        >>> Cell("wwm", "sop", "all_shared", 16, 128, "jieba").records_name
        'sop_jieba'
        """
        if self.word_segmenter == "none":
            return self.record_objective
        return f"{self.record_objective}_{re.sub(r'[^A-Za-z0-9]+', '_', self.word_segmenter)}"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)
