"""whole_word_candidates: fill_mask's pieces as the words a person expects."""

from __future__ import annotations

from albert_tf.export.fill_mask_words import whole_word_candidates


def test_keeps_word_starting_pieces_without_the_marker_best_first():
    pieces = [b"\xe2\x96\x81", b"s", b"\xe2\x96\x81,", b"\xe2\x96\x81released", b"", "▁2011"]
    scores = [0.1, 0.05, 0.05, 0.04, 0.0, 0.01]
    assert whole_word_candidates(pieces, scores) == [("released", 0.04), ("2011", 0.01)]


def test_count_limits_the_candidates_and_punctuation_alone_is_never_a_word():
    pieces = ["▁a", "▁b", "▁c", "▁.", "▁\u2014", "▁é"]
    assert [w for w, _ in whole_word_candidates(pieces, [0.5] * 6, count=2)] == ["a", "b"]
    assert [w for w, _ in whole_word_candidates(pieces, [0.5] * 6)] == ["a", "b", "c", "é"]
