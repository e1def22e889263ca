"""Loading and validating ALBERT SentencePiece model files.

An ALBERT model must have `<pad>`=0, `<unk>`=1, `[CLS]`=2, `[SEP]`=3, `[MASK]`=4. The original
code silently maps missing special tokens to `<unk>`; we reject such files with an error naming
the file and the offending id.

The released models store `[CLS]`, `[SEP]`, `[MASK]` as CONTROL symbols, which SentencePiece never
produces from text. We rewrite them to USER_DEFINED symbols at load time, so a literal `[MASK]` in
text encodes to id 4 in Python and in tensorflow-text alike (fill-mask inputs need this), and
`decode` shows them instead of dropping them. Ids and scores are unchanged.
"""

from __future__ import annotations

import os

from sentencepiece import sentencepiece_model_pb2

from albert_tf.errors import MissingInputError, UserError
from albert_tf.tokenization.unspaced_scripts import cjk_count

ALBERT_ID_LAYOUT = ("<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]")
PAD_ID, UNK_ID, CLS_ID, SEP_ID, MASK_ID = range(len(ALBERT_ID_LAYOUT))
# Ids below this are <pad>/<unk>/[CLS]/[SEP]/[MASK]; normal pieces start here.
FIRST_NORMAL_ID = len(ALBERT_ID_LAYOUT)
_SPECIAL_TYPES = (
    sentencepiece_model_pb2.ModelProto.SentencePiece.CONTROL,
    sentencepiece_model_pb2.ModelProto.SentencePiece.USER_DEFINED,
)
_HOW_TO_FIX = (
    "ALBERT needs <pad>=0, <unk>=1, [CLS]=2, [SEP]=3, [MASK]=4; retrain with "
    "albert-tf tokenizer (albert_tf.tokenization.train_sentencepiece)."
)


def read_model_proto(model_file: str) -> sentencepiece_model_pb2.ModelProto:
    """Reads and parses a `.model` file; clear errors for a missing or corrupt file."""
    if not os.path.isfile(model_file):
        raise MissingInputError(
            f"SentencePiece model file {model_file!r} does not exist; pass the path of a "
            "`.model` file written by albert-tf tokenizer."
        )
    with open(model_file, "rb") as handle:
        data = handle.read()
    return parse_model_proto(data, source=model_file)


def parse_model_proto(data: bytes, source: str = "<bytes>") -> sentencepiece_model_pb2.ModelProto:
    """Parses serialized model bytes; `source` names them in errors."""
    proto = sentencepiece_model_pb2.ModelProto()
    try:
        proto.ParseFromString(data)
    except Exception as error:
        raise UserError(f"{source}: not a SentencePiece model file ({error}).") from error
    if not proto.pieces:
        raise UserError(f"{source}: not a SentencePiece model file (it has no pieces).")
    return proto


def validate_albert_layout(proto: sentencepiece_model_pb2.ModelProto, source: str) -> None:
    """Raises ValueError unless ids 0..4 are `<pad> <unk> [CLS] [SEP] [MASK]`."""
    pieces = proto.pieces
    if len(pieces) < len(ALBERT_ID_LAYOUT):
        raise UserError(f"{source}: only {len(pieces)} pieces. {_HOW_TO_FIX}")
    for piece_id, expected in enumerate(ALBERT_ID_LAYOUT):
        actual = pieces[piece_id].piece
        if actual != expected:
            raise UserError(
                f"{source}: id {piece_id} is {actual!r}, expected {expected!r}. {_HOW_TO_FIX}"
            )
    if pieces[1].type != sentencepiece_model_pb2.ModelProto.SentencePiece.UNKNOWN:
        raise UserError(f"{source}: id 1 '<unk>' is not the unknown piece. {_HOW_TO_FIX}")
    for piece_id in range(2, len(ALBERT_ID_LAYOUT)):
        if pieces[piece_id].type not in _SPECIAL_TYPES:
            raise UserError(
                f"{source}: id {piece_id} {pieces[piece_id].piece!r} is an ordinary piece, not a "
                f"control or user-defined symbol. {_HOW_TO_FIX}"
            )


def load_albert_model_proto(model_file: str) -> bytes:
    """Reads, validates and returns the model with `[CLS] [SEP] [MASK]` made user-defined.

    Example:
        >>> proto_bytes = load_albert_model_proto(spm_model)
    """
    return albert_model_proto_from_bytes(
        read_model_proto(model_file).SerializeToString(), model_file
    )


def albert_model_proto_from_bytes(data: bytes, source: str = "<bytes>") -> bytes:
    """Like `load_albert_model_proto` for serialized bytes (e.g. from a SavedModel asset)."""
    proto = parse_model_proto(data, source)
    validate_albert_layout(proto, source)
    for piece_id in range(2, len(ALBERT_ID_LAYOUT)):
        proto.pieces[piece_id].type = sentencepiece_model_pb2.ModelProto.SentencePiece.USER_DEFINED
    return proto.SerializeToString()


def without_dummy_prefix(data: bytes) -> bytes:
    """The model with SentencePiece's dummy prefix off: a text is encoded as a continuation
    of running text ("治" -> "治", not "▁治" or "▁" "治"), as each character of a
    character-level file must be (its neighbors in running text have no space before them).

    Example:
        >>> proto = without_dummy_prefix(load_albert_model_proto(spm_model))
        >>> parse_model_proto(proto).normalizer_spec.add_dummy_prefix
        False
    """
    proto = parse_model_proto(data)
    proto.normalizer_spec.add_dummy_prefix = False
    return proto.SerializeToString()


def joined_cjk_share(data: bytes) -> float:
    """Share of the model's CJK pieces that join two or more CJK characters (0 for a model
    trained with `cjk_character_pieces`): pieces a character-level tagger never reads."""
    counts = [cjk_count(piece.piece) for piece in parse_model_proto(data).pieces]
    cjk = [count for count in counts if count]
    return sum(count > 1 for count in cjk) / max(len(cjk), 1)
