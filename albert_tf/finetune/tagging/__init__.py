"""Token classification (named entities, chunks): CoNLL-style and JSONL files.

`tagging_task.TaggingTask` is the family on the fine-tuning driver
(`tagging_task.run_tagging(config, output_dir, runtime)` does a whole run); the pieces are
`tag_schemes` (IOB1, IOB2/BIO, IOBES), `sentences` (reading files), `word_pieces` (word-to-piece
alignment and windows), `conlleval` (entity-level metrics), `baseline` (most frequent tag per
word), `models.token_classifier.AlbertTokenClassifier` and `serving.tagger_endpoints` (its
SavedModel signatures).
"""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "TaggingConfig": ".tagging_config",
    "TaggingTask": ".tagging_task",
    "run_tagging": ".tagging_task",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
