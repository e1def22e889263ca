"""The weights indexed by piece id, and growing them to a vocabulary extended by N pieces.

An ALBERT over a vocabulary of V pieces has two weights with one row per piece: the word
embedding [V, E] and the masked-LM output bias [V] (the MLM logits are the word embedding's
transpose times the hidden state, plus that bias). A SentencePiece model extended by N pieces
keeps the old ids and appends ids V .. V+N-1 (`albert_tf.tokenization.vocabulary_extension`);
`grow_vocabulary` appends N rows to both weights and copies every other weight, so on text
without new pieces the grown model computes what the old one did. Continued pretraining can
then train the new rows alone first (`albert_tf.training.new_rows`).

Example:
    >>> from albert_tf.config import AlbertConfig
    >>> encoder = AlbertEncoder(AlbertConfig.preset("albert_tiny").replace(vocab_size=8))
    >>> grown = grow_vocabulary(encoder, [[5, 6], [1]])  # New id 8 spelled by 5 6, 9 by 1.
    >>> [tuple(weight.shape) for weight in vocabulary_weights(grown)]
    [(10, 64)]
"""

from __future__ import annotations

from collections.abc import Sequence

import keras
import numpy as np

from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer


def vocabulary_weights(model: AlbertEncoder | AlbertPretrainer) -> list[keras.Variable]:
    """The weights of `model` with one row per piece: the word embedding, and with the
    pretraining heads the masked-LM output bias."""
    if isinstance(model, AlbertPretrainer):
        return [
            model.encoder.embeddings.word_embeddings.embeddings,
            model.masked_lm_head.output_bias,
        ]
    return [model.embeddings.word_embeddings.embeddings]


def grow_vocabulary(
    model: AlbertEncoder | AlbertPretrainer, spellings: Sequence[Sequence[int]]
) -> AlbertEncoder | AlbertPretrainer:
    """A copy of `model` over its V pieces plus one new piece per entry of `spellings`.

    `spellings[i]` holds the old ids that spelled new piece V + i (its string cut by the old
    model, `PieceSpeller`): the new row of each vocabulary weight starts as the mean of their
    rows. Rows 0 .. V-1 and every other weight are copied unchanged.
    """
    pretrainer = isinstance(model, AlbertPretrainer)
    encoder = model.encoder if pretrainer else model
    config = encoder.config.replace(vocab_size=encoder.config.vocab_size + len(spellings))
    grown = AlbertEncoder(config)
    if pretrainer:
        grown = AlbertPretrainer(grown)
    rows = {weight.path for weight in vocabulary_weights(model)}
    for old, new in zip(model.weights, grown.weights, strict=True):
        if old.path != new.path:  # The same architecture builds the same weights.
            raise AssertionError(f"weight {new.path} of the grown model is {old.path} here")
        value = keras.ops.convert_to_numpy(old)
        if old.path in rows:
            added = [value[list(ids)].astype("float64").mean(axis=0) for ids in spellings]
            added = np.asarray(added, dtype=value.dtype).reshape((-1, *value.shape[1:]))
            value = np.concatenate([value, added])
        new.assign(value)
    return grown
