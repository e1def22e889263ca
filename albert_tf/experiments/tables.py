"""`results.csv` (one row per cell) and `results.md` (tables laid out like the paper's)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence

from albert_tf.config import AlbertConfig
from albert_tf.experiments.parameter_counts import (
    count_encoder_parameters,
    millions,
    paper_convention_count,
    paper_shape,
)
from albert_tf.experiments.presets import MODEL_SIZES, Preset

CSV_COLUMNS = (
    "preset",
    "cell",
    "sentence_objective",
    "sharing",
    "embedding_size",
    "paper_embedding_size",
    "word_segmenter",
    "hidden_size",
    "num_hidden_layers",
    "parameters",
    "paper_shape_parameters",
    "paper_shape_millions",
    "paper_parameters",
    "num_train_steps",
    "train_batch_size",
    "max_seq_length",
    "wall_seconds",
    "resumed",
    "mlm_accuracy",
    "mlm_accuracy_se",
    "nsp_head_accuracy",
    "nsp_head_accuracy_se",
    "nsp_probe_accuracy",
    "nsp_probe_accuracy_se",
    "sop_head_accuracy",
    "sop_head_accuracy_se",
    "sop_probe_accuracy",
    "sop_probe_accuracy_se",
    "nsp_eval_records",
    "sop_eval_records",
    "paper_mlm",
    "paper_nsp",
    "paper_sop",
    "downstream_accuracy",
    "downstream_accuracy_se",
    "downstream_examples",
)

EVALUATION_NOTE = (
    "Accuracies in % ± one binomial standard error, on held-out records (built from the "
    "eval text). *head*: the cell's own sentence head (trained on NSP or SOP) applied to "
    "NSP and to SOP records, as the paper's Table 5 does; an MLM-only cell has none (—). "
    "*probe*: for every cell alike, a logistic regression on the frozen pooled output, fit "
    "on other held-out records of the same objective. MLM: the MLM head on the masked "
    "tokens of the SOP eval records (tokens are not independent: its SE is optimistic). "
    "Paper figures: ALBERT-base after 125k steps of batch 4096 (REFERENCE.md); ours are "
    "tiny models trained for minutes, so compare directions, not levels."
)
PARAMETER_NOTE = (
    "*params*: this run's encoder + pooler. *at paper shape*: our exact count (encoder + "
    "pooler) of the same cell at ALBERT-base shape (H = 768, L = 12, V = 30,000, E = the "
    "paper's E), and in brackets in millions as the paper counts: its not-shared figures "
    "leave out the pooler (H² + H = 590,592), its shared ones include it; so counted, every "
    "figure of the paper's Tables 3 and 4 equals ours."
)


def write_csv(rows: Sequence[dict]) -> str:
    """The rows as CSV text (missing values empty)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if _missing(row.get(k)) else row.get(k) for k in CSV_COLUMNS})
    return buffer.getvalue()


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def percent(row: dict, name: str) -> str:
    """`"61.2 ± 1.1"` from a fraction and its `_se`; `—` when missing.

    >>> percent({"a": 0.6123, "a_se": 0.011}, "a")
    '61.2 ± 1.1'
    """
    value = row.get(name)
    if _missing(value):
        return "—"
    se = row.get(f"{name}_se")
    return f"{100 * value:.1f}" + ("" if _missing(se) else f" ± {100 * se:.1f}")


def _paper(value) -> str:
    return "—" if _missing(value) or value == "" else f"{value}"


def _paper_millions(row: dict) -> str:
    config = paper_shape(row["sharing"], row["paper_embedding_size"])
    return millions(paper_convention_count(config))


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def cells_table(rows: Sequence[dict], paper_intrinsic: bool = True) -> str:
    """The cells' table; `paper_intrinsic`: with the paper's Table 5 accuracies column."""
    header = [
        "cell",
        "objective",
        "sharing",
        "E (paper E)",
        "params",
        "at paper shape",
        "paper params",
        "MLM",
        "NSP head",
        "NSP probe",
        "SOP head",
        "SOP probe",
    ]
    downstream = any(not _missing(row.get("downstream_accuracy")) for row in rows)
    segmented = any(row.get("word_segmenter", "none") != "none" for row in rows)
    header[3:3] = ["word segmenter"] * segmented
    header += ["paper MLM / NSP / SOP"] * paper_intrinsic + ["downstream (dev)"] * downstream
    body = []
    for row in rows:
        objective = row["sentence_objective"]
        cells = [
            row["cell"],
            objective.upper() if objective != "none" else "MLM only",
            row["sharing"],
            f"{row['embedding_size']} ({row['paper_embedding_size']})",
            f"{row['parameters']:,}",
            f"{row['paper_shape_parameters']:,} ({_paper_millions(row)})",
            _paper(row.get("paper_parameters")),
            *(percent(row, f"{name}_accuracy") for name in _ACCURACIES),
        ]
        cells[3:3] = [row.get("word_segmenter", "none")] * segmented
        if paper_intrinsic:
            cells.append(" / ".join(_paper(row.get(f"paper_{k}")) for k in ("mlm", "nsp", "sop")))
        if downstream:
            cells.append(percent(row, "downstream_accuracy"))
        body.append(cells)
    return _markdown_table(header, body)


_ACCURACIES = ("mlm", "nsp_head", "nsp_probe", "sop_head", "sop_probe")


def model_size_table() -> str:
    body = []
    for name, preset, overrides, paper in MODEL_SIZES:
        config = AlbertConfig.preset(preset, **overrides)
        count = count_encoder_parameters(config)
        paper_count = paper_convention_count(config)
        body.append(
            (
                name,
                config.hidden_size,
                config.num_hidden_layers,
                config.embedding_size,
                config.sharing,
                f"{count:,}",
                millions(paper_count),
                paper,
            )
        )
    header = (
        "model",
        "H",
        "L",
        "E",
        "sharing",
        "params (ours)",
        "ours as the paper counts",
        "paper",
    )
    return _markdown_table(header, body)


def write_markdown(preset: Preset, rows: Sequence[dict], scale_line: str) -> str:
    """`results.md`: the preset's table with the paper's figures beside ours."""
    parts = [f"# {preset.title}\n"]
    if preset.trains:
        parts += [
            f"{scale_line}\n",
            cells_table(rows, preset.paper_intrinsic),
            "",
            EVALUATION_NOTE,
            "",
            PARAMETER_NOTE,
            "",
        ]
        wall = sum(row.get("wall_seconds") or 0.0 for row in rows)
        parts.append(f"Training wall time, all cells: {wall / 60:.1f} min.\n")
    else:
        parts += [
            model_size_table(),
            "",
            "Encoder + pooler, V = 30,000, max_position 512, computed without building the "
            "model (`count_encoder_parameters`, equal to `AlbertEncoder.count_params()`). "
            "As the paper counts: without the pooler for not-shared (BERT) models, with it "
            "for ALBERT (`paper_convention_count`). Differences: BERT-xlarge 1271M vs 1270M, "
            "ALBERT-xlarge 59M vs 60M (REFERENCE.md: the paper says 59-60M), ALBERT-xxlarge "
            "223M vs 235M (no count of this architecture gives 235M).\n",
        ]
    return "\n".join(parts)
