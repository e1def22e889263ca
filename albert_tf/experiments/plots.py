"""PNG figures with matplotlib (the `paper` extra): learning curves, parameters vs
accuracy, the layer-transition figure (the paper's Figure 2), and scores against label
budgets (benchmarks/label_budgets.py)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from albert_tf.atomic_files import atomic_output_file


def _pyplot():
    import matplotlib  # The `paper` extra; imported here so the package works without it.

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _color(index: int) -> str:
    """One color per cell on every panel (10 colors; a preset has at most 8 cells)."""
    return f"C{index % 10}"


def _save(figure, path: str) -> None:
    with atomic_output_file(path) as temp_path:
        figure.savefig(temp_path, format="png", dpi=110, bbox_inches="tight")
    _pyplot().close(figure)


def plot_learning_curves(rows: Sequence[dict], title: str, path: str) -> None:
    """Training MLM and sentence-task accuracy (per logging window) of every cell."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for index, row in enumerate(rows):
        curves = row.get("curves") or {}
        for axis, name in zip(axes, ("masked_lm_accuracy", "sentence_order_accuracy"), strict=True):
            points = curves.get(name) or []
            if name == "sentence_order_accuracy" and row["sentence_objective"] == "none":
                continue  # an untrained head: nothing to show
            if points:
                steps, values = zip(*points, strict=True)
                axis.plot(steps, values, label=row["cell"], color=_color(index))
    axes[0].set_title("train MLM accuracy")
    axes[1].set_title("train sentence-task accuracy (own objective)")
    for axis in axes:
        axis.set_xlabel("step")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    figure.suptitle(title)
    _save(figure, path)


def plot_parameters_vs_accuracy(rows: Sequence[dict], title: str, path: str) -> None:
    """Held-out MLM and SOP-probe accuracy against the parameter count, ± 1 SE."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for axis, name, label in zip(
        axes,
        ("mlm_accuracy", "sop_probe_accuracy"),
        ("held-out MLM accuracy", "held-out SOP accuracy (probe)"),
        strict=True,
    ):
        for index, row in enumerate(rows):
            value = row.get(name)
            if value is None or math.isnan(value):
                continue
            axis.errorbar(
                row["parameters"],
                value,
                yerr=row.get(f"{name}_se") or 0.0,
                fmt="o",
                capsize=3,
                color=_color(index),
                label=row["cell"],
            )
        axis.set_xscale("log")
        axis.legend(fontsize=8)
        axis.set_xlabel("parameters (encoder + pooler)")
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
    figure.suptitle(title)
    _save(figure, path)


def plot_label_budgets(
    curves: dict[str, Sequence[tuple[int, float, float]]], metric: str, title: str, path: str
) -> None:
    """A dev score against the number of labeled training examples: one line per model, each
    point `(examples, mean, standard deviation over seeds)` (a baseline: deviation 0)."""
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(6.5, 4.2))
    for index, (name, points) in enumerate(curves.items()):
        examples, means, stds = zip(*points, strict=True)
        dashed = not any(stds)
        axis.errorbar(
            examples,
            means,
            yerr=stds,
            fmt="s--" if dashed else "o-",
            capsize=3,
            color=_color(index),
            label=name,
        )
    axis.set_xscale("log")
    axis.minorticks_off()
    ticks = sorted({e for points in curves.values() for e, _, _ in points})
    axis.set_xticks(ticks)
    if any(high / low < 1.5 for low, high in itertools.pairwise(ticks)):
        # Close sizes (8,000 and all 9,600, say) would print their labels over each other.
        axis.tick_params(axis="x", labelrotation=30)
    axis.get_xaxis().set_major_formatter(plt.FuncFormatter(lambda value, _: f"{value:,.0f}"))
    axis.set_xlabel("labeled training examples (log scale)")
    axis.set_ylabel(f"{metric} (mean ± sd over seeds)")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    axis.set_title(title)
    _save(figure, path)


def plot_layer_transitions(models: dict[str, Sequence[dict]], path: str, title: str = "") -> None:
    """L2 distance and cosine similarity between each layer's input and output, one line
    per model (the paper's Figure 2)."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for index, (name, rows) in enumerate(models.items()):
        layers = [row["layer"] for row in rows]
        style = dict(marker="o", label=name, color=_color(index))
        axes[0].plot(layers, [row["l2_distance"] for row in rows], **style)
        axes[1].plot(layers, [row["cosine_similarity"] for row in rows], **style)
    axes[0].set_title("L2 distance, layer input to output")
    axes[1].set_title("cosine similarity, layer input to output")
    for axis in axes:
        axis.set_xlabel("layer")
        axis.xaxis.get_major_locator().set_params(integer=True)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    figure.suptitle(title or "Layer transitions (mean over tokens)")
    _save(figure, path)
