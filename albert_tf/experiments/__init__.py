"""The paper in miniature: ablation presets, cell runs, tables, plots and layer analysis.

`run_experiment` expands a preset (`presets.PRESETS`) at a scale (`scale.SCALES`) into
cells, runs each cell as an ordinary albert_tf pretraining run in its own directory, evaluates
it (MLM, NSP and SOP accuracy on held-out records; see `evaluation`), and writes
`results.csv`, `results.md` and PNG plots. `layer_analysis` measures the paper's Figure 2.
"""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "PRESETS",
    "SCALES",
    "analyze_layers",
    "run_experiment",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
