"""`PieceSpeller`: how the first pieces of a SentencePiece model spell a string, and its score.

Vocabulary extension (vocabulary_extension.py) appends pieces to a model; to score a new piece,
and to initialize its embedding row when a checkpoint grows (`new_piece_spellings`, then
models/vocabulary_rows.py), we need the old pieces that spelled its string before: the old
model's own segmentation (the unigram Viterbi path) of exactly that string, and that path's
score.

The string is a piece, already normalized and with its `▁` word marks, so the speller runs the
old pieces under a copy of the model with an identity normalizer, no dummy prefix and no
whitespace cleanup: `spell("▁cardio")` segments the characters `▁cardio` and nothing else.

Scores are those SentencePiece's encoder adds up (unigram_model.cc): a normal piece its own
score, a user-defined symbol `length * max_score - 0.1`, an unknown character
`min_score - 10`, where `min_score`/`max_score` range over the normal pieces.

Illustration (not run):
    speller = PieceSpeller(read_model_proto("extended.model"), num_pieces=30000)
    speller.spell("▁cardiology")  # the old pieces ▁card io logy
    Spelling(ids=(2714, 1963, 8451), score=-27.3, unknown_characters=0, cost=3)
"""

from __future__ import annotations

import dataclasses

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2

_Piece = sentencepiece_model_pb2.ModelProto.SentencePiece
# SentencePiece's penalty of an unknown character below the lowest piece score.
UNKNOWN_PENALTY = 10.0


@dataclasses.dataclass(frozen=True)
class Spelling:
    """The old model's segmentation of a string.

    Attributes:
        ids: the pieces' ids (a run of unknown characters is one `<unk>` id, as SentencePiece
            merges them).
        score: the path's score, the sum SentencePiece's Viterbi maximized.
        unknown_characters: characters no old piece holds.
        cost: pieces, each unknown character counted as one (as SentencePiece's lattice holds
            them before merging).
    """

    ids: tuple[int, ...]
    score: float
    unknown_characters: int
    cost: int


def normal_score_range(proto: sentencepiece_model_pb2.ModelProto, num_pieces: int) -> tuple:
    """(lowest, highest) score of the normal pieces among the first `num_pieces`."""
    scores = [p.score for p in proto.pieces[:num_pieces] if p.type == _Piece.NORMAL]
    return min(scores), max(scores)


class PieceSpeller:
    """Spells strings with the first `num_pieces` pieces of `proto` (default: all of them).

    Args:
        proto: the model (its pieces and scores are read, never changed).
        num_pieces: how many of its first pieces form the old vocabulary.
    """

    def __init__(self, proto: sentencepiece_model_pb2.ModelProto, num_pieces: int | None = None):
        old = sentencepiece_model_pb2.ModelProto()
        old.CopyFrom(proto)
        num_pieces = len(proto.pieces) if num_pieces is None else num_pieces
        del old.pieces[num_pieces:]
        spec = old.normalizer_spec
        spec.name = "identity"
        spec.precompiled_charsmap = b""
        spec.add_dummy_prefix = False
        spec.remove_extra_whitespaces = False
        old.trainer_spec.vocab_size = num_pieces
        self._pieces = old.pieces
        self.min_score, self.max_score = normal_score_range(old, num_pieces)
        self._processor = spm.SentencePieceProcessor(model_proto=old.SerializeToString())

    def spell(self, text: str) -> Spelling:
        """The old pieces that spell `text` (a normalized piece string) and their score."""
        encoded = self._processor.encode(text, out_type="immutable_proto")
        ids, score, unknown, cost = [], 0.0, 0, 0
        for piece in encoded.pieces:
            ids.append(piece.id)
            kind = self._pieces[piece.id].type
            length = len(piece.surface)
            cost += 1
            if kind == _Piece.UNKNOWN:
                unknown += length
                cost += length - 1
                score += length * (self.min_score - UNKNOWN_PENALTY)
            elif kind == _Piece.USER_DEFINED:
                score += length * self.max_score - 0.1
            else:
                score += self._pieces[piece.id].score
        return Spelling(tuple(ids), score, unknown, cost)
