"""Text -> encoder inputs with ops LiteRT runs: tensorflow-text's fast SentencePiece + builtins.

The SavedModel featurizer (`AlbertTextFeatures`) cannot be converted as it is: its normalization
(`tf.strings.lower`, `NormalizeUTF8`, `StaticRegexReplace`) and its ragged packing
(`RaggedGather`, `RaggedTensorToTensor`) have no LiteRT kernels (Flex only). Here:

* normalization is a pre-step outside the model: `normalize_text` (albert_tf/tokenization/
  normalize.py) on the host, i.e. Unicode-whitespace collapse, NFKD + removal of combining
  marks (accents), lowercasing. None of the three is expressible with builtin TFLite ops or the
  tensorflow-text LiteRT custom ops. SentencePiece's own normalizer (the model file's rules)
  does run inside, as in `AlbertTokenizer`;
* SentencePiece is `tensorflow_text.FastSentencepieceTokenizer` (custom op
  `TFText>FastSentencepieceTokenize`), which outputs flat ids and row splits;
* dropping a bare "▁" before `[CLS]`/`[SEP]`/`[MASK]` and the packing
  (`[CLS] A [SEP] (B [SEP])`, longest-first truncation, padding) are the SavedModel's own
  (`text_tokenizer_layer.drop_space_before_special`, `text_packing.pack_pieces`), written on
  those dense tensors with gather/where/cumsum/scatter, so they convert to builtin ops.

`pre-step + model` gives the ids of `AlbertTokenizer` + `pack_segments_reference`
(tests/export/litert/test_converter.py).
"""

from __future__ import annotations

import tensorflow as tf

from albert_tf.tokenization.text_packing import Pieces
from albert_tf.tokenization.text_tokenizer_layer import drop_space_before_special


def tokenize_dense(tokenizer, texts: tf.Tensor, space_id: int) -> Pieces:
    """Pre-normalized strings [B] -> pieces, with the bare "▁" before special tokens dropped.

    Args:
        tokenizer: a `tensorflow_text.FastSentencepieceTokenizer` of the ALBERT model.
        texts: `tf.string` [B], already `normalize_text`-ed.
        space_id: id of the bare "▁" piece, or -1 when the vocabulary has none.
    """
    ragged = tokenizer.tokenize(texts)
    values = tf.cast(ragged.values, tf.int32)
    splits = tf.cast(ragged.row_splits, tf.int32)
    if space_id < 0:
        return values, splits
    return drop_space_before_special(values, splits, space_id)
