"""Extractive QA: SQuAD v1.1 and v2.0.

`task.SquadTask` is the family on the fine-tuning driver (`task.run_squad(config, output_dir)`
does a whole run); the pieces are `examples` (reading SQuAD JSON), `features` (windows with
original-character offsets), `decoding` (n-best legal spans, v2 nulls), `scoring` (the
official EM/F1), `baseline`, `models.span_qa.AlbertSpanQA` and `serving.export_span_qa`
(`answer(question, context)`).
"""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "SquadConfig",
    "SquadTask",
    "export_span_qa",
    "run_squad",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
