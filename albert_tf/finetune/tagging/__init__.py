"""Token classification (named entities, chunks): CoNLL-style and JSONL files.

`run.run_tagging(TaggingConfig, output_dir)` does a whole run; the pieces are `tag_schemes`
(IOB1, IOB2/BIO, IOBES), `sentences` (reading files), `word_pieces` (word-to-piece alignment
and windows), `conlleval` (entity-level metrics), `baseline` (most frequent tag per word),
`models.token_classifier.AlbertTokenClassifier` and `serving.export_tagger`.
"""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "TaggingConfig",
    "export_tagger",
    "run_tagging",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
