"""train_sentencepiece: outputs, atomicity, sampling, errors."""

import os

import pytest

from albert_tf.tokenization.model_proto import read_model_proto
from albert_tf.tokenization.train import ORIGINAL_USER_SYMBOLS, train_sentencepiece


def test_writes_model_and_vocab_and_no_temp_files(small_model_file):
    directory = os.path.dirname(small_model_file)
    assert sorted(os.listdir(directory)) == ["sample.model", "sample.vocab"]
    with open(small_model_file[: -len(".model")] + ".vocab", encoding="utf-8") as handle:
        vocab = [line.split("\t")[0] for line in handle]
    assert vocab[:5] == ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]
    assert tuple(vocab[5 : 5 + len(ORIGINAL_USER_SYMBOLS)]) == ORIGINAL_USER_SYMBOLS
    assert len(vocab) == 1000


def test_vocabulary_is_built_from_normalized_text(small_model_file, cased_model_file):
    lowered = {piece.piece for piece in read_model_proto(small_model_file).pieces[13:]}
    cased = {piece.piece for piece in read_model_proto(cased_model_file).pieces[13:]}
    assert not any(ch.isupper() or ch in "éàüö" for piece in lowered for ch in piece)
    assert any(ch.isupper() for piece in cased for ch in piece)


def test_sampled_training_uses_the_sample(tmp_path, sample_lines):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(sample_lines), encoding="utf-8")

    def train(name, seed):
        return train_sentencepiece(
            [str(tmp_path / "*.txt")], str(tmp_path / name / "m"), 300, sample_size=200, seed=seed
        )

    model_file = train("out", seed=1)
    spec = read_model_proto(model_file).trainer_spec
    assert spec.vocab_size == 300
    # SentencePiece samples the lines itself, as in the original recipe.
    assert spec.input_sentence_size == 200 and spec.shuffle_input_sentence

    def pieces(path):
        return [(piece.piece, piece.score) for piece in read_model_proto(path).pieces]

    assert pieces(train("again", seed=1)) == pieces(model_file)  # reproducible from the seed
    with pytest.raises(ValueError, match="sample_size"):
        train_sentencepiece([str(corpus)], str(tmp_path / "m"), 300, sample_size=0)


def test_bad_inputs_name_the_problem(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing_\\*.txt"):
        train_sentencepiece([str(tmp_path / "missing_*.txt")], str(tmp_path / "m"), vocab_size=100)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(ValueError, match="contain no text"):
        train_sentencepiece([str(empty)], str(tmp_path / "m"), vocab_size=100)
    assert not list(tmp_path.glob("m.*"))
