"""Validation of SentencePiece model files against the ALBERT id layout."""

import pytest
from sentencepiece import sentencepiece_model_pb2

from albert_tf.tokenization.model_proto import (
    ALBERT_ID_LAYOUT,
    load_albert_model_proto,
    read_model_proto,
)
from albert_tf.tokenization.train import train_sentencepiece

USER_DEFINED = sentencepiece_model_pb2.ModelProto.SentencePiece.USER_DEFINED


def test_trained_model_has_original_layout(small_model_file):
    proto = read_model_proto(small_model_file)
    assert tuple(piece.piece for piece in proto.pieces[:5]) == ALBERT_ID_LAYOUT
    assert proto.trainer_spec.model_type == sentencepiece_model_pb2.TrainerSpec.UNIGRAM
    assert (proto.trainer_spec.bos_id, proto.trainer_spec.eos_id) == (-1, -1)


def test_loading_makes_special_tokens_user_defined(small_model_file):
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(load_albert_model_proto(small_model_file))
    assert [proto.pieces[i].type for i in (2, 3, 4)] == [USER_DEFINED] * 3
    original = read_model_proto(small_model_file)
    assert [p.piece for p in proto.pieces] == [p.piece for p in original.pieces]


def test_model_without_control_symbols_is_rejected(tmp_path, sample_lines):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(sample_lines[:400]), encoding="utf-8")
    model_file = train_sentencepiece(
        [str(corpus)], str(tmp_path / "plain"), vocab_size=300, control_symbols=()
    )
    with pytest.raises(ValueError, match=r"plain\.model: id 2 is .*expected '\[CLS\]'"):
        load_albert_model_proto(model_file)


def test_missing_and_corrupt_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.model"):
        load_albert_model_proto(str(tmp_path / "nope.model"))
    corrupt = tmp_path / "corrupt.model"
    corrupt.write_bytes(b"\xff\x00 definitely not a protobuf")
    with pytest.raises(ValueError, match="corrupt.model: not a SentencePiece model"):
        load_albert_model_proto(str(corrupt))
