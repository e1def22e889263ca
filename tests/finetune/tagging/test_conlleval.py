"""conlleval scores against hand-computed cases (IOB1 vs IOB2 boundaries, per type, IOBES)."""

from __future__ import annotations

import random

import pytest

from albert_tf.finetune.tagging.conlleval import conlleval, end_of_chunk, start_of_chunk
from albert_tf.finetune.tagging.tag_schemes import split_tag


def counts(scores):
    return scores["correct"], scores["found_gold"], scores["found_predicted"]


def test_iob1_b_splits_touching_chunks_of_one_type():
    # Gold (IOB1): "I-PER I-PER" is one person, the B-PER right after it a second one.
    scores = conlleval([["I-PER", "I-PER", "B-PER", "O"]], [["I-PER", "I-PER", "I-PER", "O"]])
    assert counts(scores) == (0, 2, 1)
    assert (scores["precision"], scores["recall"], scores["f1"]) == (0.0, 0.0, 0.0)
    assert scores["accuracy"] == 3 / 4


def test_iob1_and_iob2_spellings_of_one_chunk_match():
    # B-PER I-PER (IOB2) and I-PER I-PER (IOB1) are the same chunk; only the tags differ.
    scores = conlleval([["B-PER", "I-PER", "O"]], [["I-PER", "I-PER", "O"]])
    assert counts(scores) == (1, 1, 1)
    assert scores["f1"] == 1.0 and scores["accuracy"] == 2 / 3


def test_type_change_and_sentence_end_close_chunks():
    scores = conlleval([["B-PER", "I-LOC"]], [["B-PER", "I-PER"]])
    assert counts(scores) == (0, 2, 1)
    # A chunk at a sentence's end does not continue into the next sentence.
    same = [["O", "I-PER"], ["I-PER", "O"]]
    assert counts(conlleval(same, same)) == (2, 2, 2)
    # An I- after O starts a chunk (conlleval), also in IOB2 data.
    assert counts(conlleval([["O", "I-LOC", "I-LOC"]], [["O", "B-LOC", "I-LOC"]])) == (1, 1, 1)


def test_per_type_and_micro_scores():
    gold = [["B-PER", "I-PER", "O", "B-LOC", "O", "B-ORG"]]
    predicted = [["B-PER", "I-PER", "O", "B-LOC", "I-LOC", "B-PER"]]
    scores = conlleval(gold, predicted)
    assert counts(scores) == (1, 3, 3)
    assert scores["precision"] == scores["recall"] == scores["f1"] == pytest.approx(1 / 3)
    assert scores["accuracy"] == 4 / 6
    assert scores["PER/precision"] == 0.5 and scores["PER/recall"] == 1.0
    assert scores["PER/f1"] == pytest.approx(2 / 3)
    assert scores["LOC/f1"] == 0.0 and scores["ORG/precision"] == 0.0
    assert scores["ORG/recall"] == 0.0
    assert [key for key in scores if key.endswith("/f1")] == ["LOC/f1", "ORG/f1", "PER/f1"]


def test_dashes_inside_types():
    scores = conlleval([["B-creative-work", "I-creative-work"]], [["B-creative-work", "O"]])
    assert counts(scores) == (0, 1, 1) and "creative-work/f1" in scores


def test_iobes():
    gold = [["S-PER", "S-PER", "B-LOC", "E-LOC", "B-LOC", "E-LOC"]]
    assert counts(conlleval(gold, gold)) == (4, 4, 4)
    predicted = [["B-PER", "E-PER", "B-LOC", "E-LOC", "S-LOC", "S-LOC"]]
    assert counts(conlleval(gold, predicted)) == (1, 4, 4)


def test_no_entities_scores_zero_not_nan():
    scores = conlleval([["O", "O"]], [["O", "O"]])
    assert counts(scores) == (0, 0, 0)
    assert scores["f1"] == 0.0 and scores["accuracy"] == 1.0


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError, match="sentence 0: 2 gold tags but 1 predicted"):
        conlleval([["O", "O"]], [["O"]])


def chunks(sentences):
    """Chunks as (sentence, start, end, type), extracted with the same start/end rules."""
    found = set()
    for index, tags in enumerate(sentences):
        previous, start = ("O", ""), None
        for position, tag in enumerate([*tags, "O"]):
            current = split_tag(tag)
            if start is not None and end_of_chunk(previous[0], current[0], previous[1], current[1]):
                found.add((index, start, position, previous[1]))
                start = None
            if start_of_chunk(previous[0], current[0], previous[1], current[1]):
                start = position
            previous = current
    return found


def test_streaming_counts_equal_chunk_set_intersection():
    """conlleval's one-pass counting == |gold chunks & predicted chunks| on random IOB tags."""
    rng = random.Random(0)
    tags = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    for _ in range(200):
        lengths = [rng.randint(1, 8) for _ in range(rng.randint(1, 4))]
        gold = [[rng.choice(tags) for _ in range(n)] for n in lengths]
        predicted = [[rng.choice(tags) for _ in range(n)] for n in lengths]
        gold_chunks, predicted_chunks = chunks(gold), chunks(predicted)
        assert counts(conlleval(gold, predicted)) == (
            len(gold_chunks & predicted_chunks),
            len(gold_chunks),
            len(predicted_chunks),
        )
