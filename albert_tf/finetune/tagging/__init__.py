"""Token classification (named entities, chunks): CoNLL-style and JSONL files.

`run.run_tagging(TaggingConfig, output_dir)` does a whole run; the pieces are `tag_schemes`
(IOB1, IOB2/BIO, IOBES), `sentences` (reading files), `word_pieces` (word-to-piece alignment
and windows), `conlleval` (entity-level metrics), `baseline` (most frequent tag per word),
`models.token_classifier.AlbertTokenClassifier` and `serving.export_tagger`.
"""
