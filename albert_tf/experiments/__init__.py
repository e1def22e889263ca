"""The paper in miniature: ablation presets, cell runs, tables, plots and layer analysis.

`run_experiment` expands a preset (`presets.PRESETS`) at a scale (`scale.SCALES`) into
cells, runs each cell as an ordinary albert_tf pretraining run in its own directory, evaluates
it (MLM, NSP and SOP accuracy on held-out records; see `evaluation`), and writes
`results.csv`, `results.md` and PNG plots. `layer_analysis` measures the paper's Figure 2.
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "PRESETS": ".presets",
    "SCALES": ".scale",
    "analyze_layers": ".layer_analysis",
    "run_experiment": ".runner",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
