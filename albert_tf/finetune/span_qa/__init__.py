"""Span QA (extractive question answering) on SQuAD v1.1 and v2.0 files.

`span_qa_task.SpanQaTask` is the family on the fine-tuning driver
(`span_qa_task.run_span_qa(config, output_dir, runtime)` does a whole run); the pieces are
`examples` (reading SQuAD JSON), `features` (windows with original-character offsets),
`decoding` (n-best legal spans, v2 nulls), `scoring` (the official SQuAD EM/F1), `baseline`,
`models.span_qa.AlbertSpanQA` and `serving.span_qa_endpoints`
(`answer(question, context)`).
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "SpanQaConfig": ".span_qa_config",
    "SpanQaTask": ".span_qa_task",
    "run_span_qa": ".span_qa_task",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
