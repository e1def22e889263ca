"""`tagger_endpoints`: a fine-tuned tagger's SavedModel signatures, taking raw text or words.

Signatures:

* `tag(text)`: sentences `tf.string` [B] -> split at ASCII whitespace into words (as
  `tf.strings.split`), one tag per word; for a character-level tagger (Chinese NER) every
  character but whitespace is a word.
* `tag_words(words, num_words)`: pre-split words as a padded `tf.string` [B, N] with each
  row's word count int32 [B] (a SavedModel signature takes no ragged tensor; words past
  `num_words` are ignored, so any padding value works).
* `serving_default(input_word_ids, input_mask, input_type_ids)`: packed ids -> `logits`
  [B, T, C] at every position (for callers that align pieces themselves).

`tag` and `tag_words` return, padded to the longest sentence of the batch: `words` string
[B, N] (padding ""), `tags` string [B, N] (padding ""), `tag_ids` int32 [B, N] (padding -1),
`probabilities` float32 [B, N, C] and `num_words` int32 [B]. Long sentences are split into
windows inside the graph (`WordPieceAligner`) and every word still gets exactly one tag.

Loading needs `tensorflow` and `tensorflow_text` (import it first: it registers the
SentencePiece and normalization ops), not albert_tf:

    import tensorflow as tf, tensorflow_text  # noqa: F401
    tagger = tf.saved_model.load(export_dir)
    tagger.signatures["tag"](text=tf.constant(["Empire State Building = ESB"]))["tags"]

The driver exports them (`export_task_model` with the family's `serving_signatures`); labels
that do not name each of the model's tags are refused (`check_label_count`).

Illustration (not run):
    tags = ("O", "B-PER", "I-PER")
    export_task_model("/tmp/ner_export", model,
                      lambda predict: tagger_endpoints(predict, aligner, tags),
                      [built_tokenizer(aligner)], runtime=Runtime.plain())
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

from albert_tf.export.endpoints import Endpoints
from albert_tf.export.task_export import Predict, check_label_count
from albert_tf.finetune.tagging.word_pieces import WordPieceAligner, gather_word_logits
from albert_tf.tokenization.normalize import whitespace_regex_class
from albert_tf.tokenization.ragged_rows import keep_values
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer

_IDS_SPEC = tf.TensorSpec([None, None], tf.int32)


def tagger_endpoints(
    predict: Predict,
    aligner: WordPieceAligner,
    labels: Sequence[str],
    character_level: bool = False,
) -> Endpoints:
    """Signature name -> (function, input signature) of the module docstring."""
    label_names = tf.constant(list(labels))

    def tag_ragged(words: tf.RaggedTensor) -> dict[str, tf.Tensor]:
        features, alignment = aligner(words)
        logits = tf.cast(predict(features), tf.float32)
        check_label_count(labels, logits, "tags")
        word_logits = gather_word_logits(logits, alignment)
        tag_ids = tf.ragged.map_flat_values(tf.argmax, word_logits, axis=-1, output_type=tf.int32)
        return {
            "words": words.to_tensor(""),
            "tags": tf.gather(label_names, tag_ids).to_tensor(""),
            "tag_ids": tag_ids.to_tensor(-1),
            "probabilities": tf.ragged.map_flat_values(tf.nn.softmax, word_logits).to_tensor(0.0),
            "num_words": tf.cast(words.row_lengths(), tf.int32),
        }

    def tag(text):
        if not character_level:
            return tag_ragged(tf.strings.split(text))
        characters = tf.strings.unicode_split(text, "UTF-8")
        is_space = tf.strings.regex_full_match(characters, whitespace_regex_class())
        return tag_ragged(keep_values(characters, tf.logical_not(is_space.values)))

    def tag_words(words, num_words):
        lengths = tf.minimum(tf.maximum(num_words, 0), tf.shape(words)[1])
        return tag_ragged(tf.RaggedTensor.from_tensor(words, lengths=lengths))

    def serve(input_word_ids, input_mask, input_type_ids):
        features = {"input_word_ids": input_word_ids, "input_mask": input_mask}
        features["input_type_ids"] = input_type_ids
        return {"logits": tf.cast(predict(features), tf.float32)}

    return {
        "tag": (tag, [tf.TensorSpec([None], tf.string)]),
        "tag_words": (
            tag_words,
            [tf.TensorSpec([None, None], tf.string), tf.TensorSpec([None], tf.int32)],
        ),
        "serving_default": (serve, [_IDS_SPEC] * 3),
    }


def built_tokenizer(aligner: WordPieceAligner) -> AlbertTextTokenizer:
    """The aligner's tokenizer, built (export needs built layers) on a tiny input."""
    aligner.tokenizer(tf.constant([""]))
    return aligner.tokenizer
