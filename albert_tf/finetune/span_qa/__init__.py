"""Extractive QA: SQuAD v1.1 and v2.0.

`run.run_squad(SquadConfig, output_dir)` does a whole run; the pieces are `examples`
(reading SQuAD JSON), `features` (windows with original-character offsets), `decoding`
(n-best legal spans, v2 nulls), `scoring` (the official EM/F1), `baseline`,
`models.span_qa.AlbertSpanQA` and `serving.export_span_qa` (`answer(question, context)`).
"""
