"""Extractive QA: SQuAD v1.1 and v2.0.

`task.SquadTask` is the family on the fine-tuning driver (`task.run_squad(config, output_dir,
runtime)` does a whole run); the pieces are `examples` (reading SQuAD JSON), `features` (windows
with original-character offsets), `decoding` (n-best legal spans, v2 nulls), `scoring` (the
official EM/F1), `baseline`, `models.span_qa.AlbertSpanQA` and `serving.span_qa_endpoints`
(`answer(question, context)`).
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "SquadConfig": ".squad_config",
    "SquadTask": ".squad_task",
    "run_squad": ".squad_task",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
