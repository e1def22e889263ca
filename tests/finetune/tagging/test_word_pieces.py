"""Word-to-piece alignment: every word exactly one first-piece position, also across windows."""

from __future__ import annotations

import types

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.finetune.tagging.sentences import read_tagged_file
from albert_tf.finetune.tagging.tagging_task import TaggingTask
from albert_tf.finetune.tagging.word_pieces import (
    IGNORE_LABEL,
    WordPieceAligner,
    gather_word_logits,
)
from albert_tf.tokenization.model_proto import CLS_ID, PAD_ID, SEP_ID, UNK_ID
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer

ZERO_PIECES = "\u200b"  # A zero-width space: normalization removes it, no piece is left.


@pytest.fixture(scope="module")
def tokenizer(tiny_model_file):
    return AlbertTextTokenizer(proto=tiny_model_file)


def word_pieces(tokenizer, word: str) -> list[int]:
    return tokenizer(tf.constant([word]))[0].numpy().tolist()


def check_alignment(tokenizer, aligner, sentences):
    """Each word: one (window, position) holding its first piece; windows are [CLS] .. [SEP]."""
    features, alignment = aligner(tf.ragged.constant(sentences, dtype=tf.string, ragged_rank=1))
    ids = features["input_word_ids"].numpy()
    mask = features["input_mask"].numpy()
    windows = alignment["word_window"].numpy()
    positions = alignment["word_position"].numpy()
    flat_words = [word for sentence in sentences for word in sentence]
    assert len(windows) == len(positions) == len(flat_words)
    assert len(set(zip(windows, positions, strict=True))) == len(
        flat_words
    )  # No two words share one.
    window_sentence = alignment["window_sentence"].numpy()
    sentence_of_word = [i for i, sentence in enumerate(sentences) for _ in sentence]
    for word, window, position, sentence in zip(
        flat_words, windows, positions, sentence_of_word, strict=True
    ):
        pieces = word_pieces(tokenizer, word) or [UNK_ID]
        assert ids[window, position] == pieces[0], word
        assert window_sentence[window] == sentence  # A window never mixes sentences.
    for window_ids, window_mask in zip(ids, mask, strict=True):
        length = int(window_mask.sum())
        assert window_ids[0] == CLS_ID and window_ids[length - 1] == SEP_ID
        assert (window_ids[length:] == PAD_ID).all() and (window_mask[:length] == 1).all()
    return features, alignment


def test_short_sentences_fit_one_window_each(tokenizer):
    aligner = WordPieceAligner(tokenizer, seq_length=32)
    sentences = [["john", "lives", "in", "paris"], ["hello"], ["@paulwalk", "it", "'s"]]
    features, alignment = check_alignment(tokenizer, aligner, sentences)
    assert features["input_word_ids"].shape == (3, 32)
    assert alignment["window_sentence"].numpy().tolist() == [0, 1, 2]
    # Pieces of one sentence are the concatenated pieces of its words.
    expected = [CLS_ID] + sum((word_pieces(tokenizer, w) for w in sentences[2]), []) + [SEP_ID]
    assert features["input_word_ids"].numpy()[2, : len(expected)].tolist() == expected


def test_long_sentences_are_split_into_windows_at_word_boundaries(tokenizer):
    aligner = WordPieceAligner(tokenizer, seq_length=8)  # 6 pieces per window.
    long_sentence = "the quick brown fox jumps over the lazy dog and runs far away".split()
    features, alignment = check_alignment(
        tokenizer, aligner, [long_sentence, ["hi"], long_sentence]
    )
    num_windows = features["input_word_ids"].shape[0]
    assert num_windows > 4
    counts = np.bincount(alignment["window_sentence"].numpy())
    assert counts[0] == counts[2] > 1 and counts[1] == 1


def test_zero_piece_words_get_unk_and_long_words_are_cut(tokenizer):
    aligner = WordPieceAligner(tokenizer, seq_length=6)  # 4 pieces per window.
    assert word_pieces(tokenizer, ZERO_PIECES) == []
    assert len(word_pieces(tokenizer, "@paulwalk")) > 4
    sentences = [[ZERO_PIECES, "a", "@paulwalk", ""], [ZERO_PIECES]]
    features, alignment = check_alignment(tokenizer, aligner, sentences)
    ids = features["input_word_ids"].numpy()
    window, position = alignment["word_window"].numpy(), alignment["word_position"].numpy()
    assert ids[window[0], position[0]] == UNK_ID and ids[window[3], position[3]] == UNK_ID
    # "@paulwalk" fills a window of its own with its first 4 pieces.
    assert ids[window[2]].tolist() == [CLS_ID] + word_pieces(tokenizer, "@paulwalk")[:4] + [SEP_ID]


def test_labels_on_first_pieces_or_all_pieces(tokenizer):
    sentences = tf.ragged.constant([["@paulwalk", "a"], ["paris"]])
    labels = tf.ragged.constant([[3, 1], [2]])
    pieces = len(word_pieces(tokenizer, "@paulwalk"))
    first, _ = WordPieceAligner(tokenizer, seq_length=16)(sentences, labels)
    first_labels = first["label_ids"].numpy()
    assert first_labels[0, : pieces + 3].tolist() == (
        [IGNORE_LABEL, 3] + [IGNORE_LABEL] * (pieces - 1) + [1, IGNORE_LABEL]
    )
    assert (first_labels != IGNORE_LABEL).sum() == 3
    every, _ = WordPieceAligner(tokenizer, seq_length=16, label_all_pieces=True)(sentences, labels)
    assert every["label_ids"].numpy()[0, 1 : pieces + 1].tolist() == [3] * pieces
    np.testing.assert_array_equal(every["input_word_ids"], first["input_word_ids"])


def test_gathered_logits_give_every_word_one_prediction(tokenizer):
    aligner = WordPieceAligner(tokenizer, seq_length=8)
    sentences = [["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog"], [], ["a"]]
    features, alignment = aligner(tf.ragged.constant(sentences, dtype=tf.string, ragged_rank=1))
    # Logits that encode (window, position): gathering must return each word's own pair.
    windows, length = features["input_word_ids"].shape
    grid = np.stack(np.meshgrid(np.arange(windows), np.arange(length), indexing="ij"), axis=-1)
    word_logits = gather_word_logits(tf.constant(grid, tf.float32), alignment)
    assert word_logits.row_lengths().numpy().tolist() == [9, 0, 1]
    expected = np.stack([alignment["word_window"], alignment["word_position"]], axis=1)
    np.testing.assert_array_equal(word_logits.flat_values.numpy(), expected)


def test_empty_batch_and_graph_mode(tokenizer):
    aligner = WordPieceAligner(tokenizer, seq_length=8)
    features, alignment = aligner(tf.ragged.constant([[]], dtype=tf.string, ragged_rank=1))
    assert features["input_word_ids"].shape == (0, 8) and alignment["word_window"].shape == (0,)
    traced = tf.function(lambda words: aligner(words)[1]["word_window"])
    words = tf.ragged.constant([["a", "b"], ["c"]])
    np.testing.assert_array_equal(traced(words), aligner(words)[1]["word_window"])


@pytest.mark.parametrize("seq_length", [3, 5, 9, 16])
def test_random_sentences_every_word_exactly_one_position(tokenizer, seq_length):
    import random

    rng = random.Random(seq_length)
    vocabulary = ["a", "paris", "@paulwalk", "café", ZERO_PIECES, "", ",", "Building", "xyzzy"]
    sentences = [[rng.choice(vocabulary) for _ in range(rng.randint(0, 12))] for _ in range(10)]
    check_alignment(tokenizer, WordPieceAligner(tokenizer, seq_length), sentences)


def test_training_data_counts_each_tag_for_the_heads_prior(tokenizer, tmp_path):
    """The family hands the driver each tag's count, which the head starts from."""
    path = tmp_path / "train.txt"
    path.write_text("john B-PER\nlives O\nin O\nparis B-LOC\n\nthe O\nfilm O\n\n")
    sentences = read_tagged_file(str(path))
    run = types.SimpleNamespace(
        inputs=types.SimpleNamespace(train=sentences),
        info=types.SimpleNamespace(labels=("O", "B-LOC", "B-PER", "I-PER")),
        featurizer=WordPieceAligner(tokenizer, 16),
    )
    data = TaggingTask.training_data(None, run)
    assert list(data.label_counts) == [4, 1, 1, 0]
