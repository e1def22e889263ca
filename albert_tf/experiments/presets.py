"""The paper's ablations as named presets, and the paper's own figures beside them.

* `embedding_size` (Table 3): E in the scale's three sizes and E = H, not shared and all
  shared.
* `sharing` (Table 4): all shared, shared attention, shared FFN, not shared, at the
  scale's default E and at E = H.
* `sentence_objective` (Table 5): MLM only, MLM + NSP, MLM + SOP (ALBERT: all shared).
* `model_size` (Tables 1 and 2): parameter counts of the paper's configurations, computed,
  nothing trained.
* `chinese_masking` (not in the paper; docs/chinese.md): whole-word masking over jieba's
  words against one character a word, on Chinese text (the Chinese releases' recipe).

Paper figures are those collected in REFERENCE.md (Lan et al. 2020): the parameter counts
of Tables 1-4 and the intrinsic accuracies of Table 5 it lists; a figure the paper has but
REFERENCE.md does not is left out rather than quoted from memory.

Example:
>>> from albert_tf.experiments.scale import SCALES
>>> [cell.name for cell in expand_preset("sentence_objective", SCALES["cpu"])]
['none', 'nsp', 'sop']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from albert_tf.config import SHARING_MODES
from albert_tf.config_fields import check_choice
from albert_tf.experiments.cell import Cell
from albert_tf.experiments.scale import ExperimentScale

PAPER_HIDDEN_SIZE = 768
# Tables 3 and 4 (ALBERT-base shape): parameters by (sharing, E).
PAPER_PARAMETERS: dict[tuple[str, int], str] = {
    ("all_shared", 64): "10M",
    ("all_shared", 128): "12M",
    ("all_shared", 256): "16M",
    ("all_shared", 768): "31M",
    ("not_shared", 64): "87M",
    ("not_shared", 128): "89M",
    ("not_shared", 256): "93M",
    ("not_shared", 768): "108M",
    ("shared_attention", 128): "64M",
    ("shared_attention", 768): "83M",
    ("shared_ffn", 128): "38M",
    ("shared_ffn", 768): "57M",
}
# Table 5 (ALBERT-base, intrinsic dev accuracy %), by sentence objective.
PAPER_INTRINSIC: dict[str, dict[str, float]] = {
    "nsp": {"nsp": 90.5, "sop": 52.0},
    "sop": {"mlm": 54.0, "nsp": 78.9, "sop": 86.5},
}
# Tables 1 and 2: (row name, AlbertConfig preset, overrides, the paper's parameters).
MODEL_SIZES: tuple[tuple[str, str, dict, str], ...] = (
    ("BERT-base", "bert_base", {}, "108M"),
    ("BERT-large", "bert_large", {}, "334M"),
    (
        "BERT-xlarge",
        "albert_xlarge",
        {"embedding_size": 2048, "sharing": "not_shared"},
        "1270M",
    ),
    ("ALBERT-base", "albert_base", {}, "12M"),
    ("ALBERT-large", "albert_large", {}, "18M"),
    ("ALBERT-xlarge", "albert_xlarge", {}, "60M"),
    ("ALBERT-xxlarge", "albert_xxlarge", {}, "235M"),
)


@dataclasses.dataclass(frozen=True)
class Preset:
    """A named ablation: its cells at a scale, and its share of the scale's step budget."""

    name: str
    title: str
    make_cells: Callable[[ExperimentScale], list[Cell]]
    steps_factor: float = 1.0
    trains: bool = True
    # Whether the paper's Table 5 accuracies are its own figures (the sentence objective).
    paper_intrinsic: bool = False

    def num_train_steps(self, scale: ExperimentScale) -> int:
        return max(1, round(scale.num_train_steps * self.steps_factor))


def _embedding_pairs(scale: ExperimentScale) -> list[tuple[int, int]]:
    """(E at this scale, the paper's E) for the three sizes and E = H."""
    paper = (64, 128, 256)
    pairs = list(zip(scale.embedding_sizes, paper, strict=True))
    return [*pairs, (scale.hidden_size, PAPER_HIDDEN_SIZE)]


def _default_embedding(scale: ExperimentScale) -> tuple[int, int]:
    return scale.embedding_size, 128


def _cell(sharing: str, embedding: tuple[int, int], objective: str = "sop") -> Cell:
    name = f"e{embedding[0]}_{sharing}"
    return Cell(name, objective, sharing, embedding[0], embedding[1])


def _embedding_size_cells(scale: ExperimentScale) -> list[Cell]:
    return [
        _cell(sharing, embedding)
        for sharing in ("not_shared", "all_shared")
        for embedding in _embedding_pairs(scale)
    ]


def _sharing_cells(scale: ExperimentScale) -> list[Cell]:
    embeddings = [(scale.hidden_size, PAPER_HIDDEN_SIZE), _default_embedding(scale)]
    return [_cell(sharing, embedding) for embedding in embeddings for sharing in SHARING_MODES]


def _sentence_objective_cells(scale: ExperimentScale) -> list[Cell]:
    embedding, paper_embedding = _default_embedding(scale)
    return [
        Cell(objective, objective, "all_shared", embedding, paper_embedding)
        for objective in ("none", "nsp", "sop")
    ]


def _chinese_masking_cells(scale: ExperimentScale) -> list[Cell]:
    embedding, paper_embedding = _default_embedding(scale)
    return [
        Cell(name, "sop", "all_shared", embedding, paper_embedding, segmenter)
        for name, segmenter in (("char", "none"), ("wwm", "jieba"))
    ]


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            "embedding_size",
            "Embedding size E (paper Table 3)",
            _embedding_size_cells,
            steps_factor=0.25,
        ),
        Preset(
            "sharing",
            "Cross-layer parameter sharing (paper Table 4)",
            _sharing_cells,
            steps_factor=0.25,
        ),
        Preset(
            "sentence_objective",
            "Sentence-prediction objective (paper Table 5)",
            _sentence_objective_cells,
            paper_intrinsic=True,
        ),
        Preset("model_size", "Model sizes (paper Tables 1 and 2)", lambda scale: [], trains=False),
        Preset(
            "chinese_masking",
            "Chinese: whole-word masking on jieba's words vs one character a word",
            _chinese_masking_cells,
        ),
    )
}


def get_preset(name: str) -> Preset:
    check_choice("preset", name, PRESETS)
    return PRESETS[name]


def expand_preset(name: str, scale: ExperimentScale) -> list[Cell]:
    """The cells of preset `name` at `scale` (in table order)."""
    return get_preset(name).make_cells(scale)
