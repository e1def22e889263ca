"""The RACE encoding: blanks, QA kept from the end, article truncated first; graph == Python."""

from __future__ import annotations

import pytest
import tensorflow as tf

from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures, fill_blanks
from albert_tf.tokenization.model_proto import CLS_ID, SEP_ID
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from tests.finetune.multiple_choice.choice_reference import encode_choice_reference, fill_blank

QUESTIONS = ["the boy went to the ______ .", "why did he go ?", "a _ b __ c", "_", ""]
OPTIONS = [
    ["park", "x", "", "zoo"],
    ["because", "no", "yes", ""],
    ["1", "22", "3", "4"],
    ["only", "an option", "", ""],
    ["q-less", "b", "c", "d"],
]
LONG = "the quick brown fox jumps over the lazy dog . " * 6


@pytest.mark.parametrize("per_underscore", [False, True])
def test_blanks_in_graph_equal_python(per_underscore):
    filled = fill_blanks(tf.constant(QUESTIONS), tf.constant(OPTIONS), per_underscore).numpy()
    for question, options, row in zip(QUESTIONS, OPTIONS, filled, strict=True):
        expected = [fill_blank(question, option, per_underscore) for option in options]
        assert [value.decode() for value in row] == expected


def test_blank_filling_rules():
    assert fill_blank("went to the ______ .", "park") == "went to the park ."
    assert fill_blank("went to the ___ .", "park", blank_per_underscore=True) == (
        "went to the parkparkpark ."
    )
    assert fill_blank("a _ b __ c", "x") == "a x b x c"
    assert fill_blank("why ?", "rain") == "why ? rain"


def test_layout_article_truncated_first(tiny_model_file):
    tokenizer = AlbertTokenizer(tiny_model_file)
    features = encode_choice_reference(tokenizer, LONG, "what jumps ?", "the fox", 24, 16)
    qa = tokenizer.encode("what jumps ? the fox")
    assert len(qa) <= 16
    ids, types, mask = (features[k] for k in ("input_word_ids", "input_type_ids", "input_mask"))
    assert sum(mask) == 24  # The article fills what the QA leaves.
    article = tokenizer.encode(LONG)[: 24 - 3 - len(qa)]
    assert ids == [CLS_ID, *article, SEP_ID, *qa, SEP_ID]
    assert types == [0] * (len(article) + 2) + [1] * (len(qa) + 1)


def test_qa_keeps_its_last_pieces(tiny_model_file):
    tokenizer = AlbertTokenizer(tiny_model_file)
    question = "which of these words about a long question is " * 3
    qa = tokenizer.encode(fill_blank(question, "right"))
    assert len(qa) > 6
    features = encode_choice_reference(tokenizer, "short .", question, "right", 32, 6)
    article = tokenizer.encode("short .")
    expected = [CLS_ID, *article, SEP_ID, *qa[-6:], SEP_ID]
    assert features["input_word_ids"] == expected + [0] * (32 - len(expected))


@pytest.mark.parametrize("per_underscore", [False, True])
def test_choice_features_equal_the_python_encoding(tiny_model_file, per_underscore):
    tokenizer = AlbertTokenizer(tiny_model_file)
    contexts = [LONG, "tom has a small cat .", "", "café , naïve [MASK] text", LONG[:40]]
    layer = ChoiceFeatures(tiny_model_file, 24, 8, blank_per_underscore=per_underscore)
    batch = layer([tf.constant(contexts), tf.constant(QUESTIONS), tf.constant(OPTIONS)])
    assert batch["input_word_ids"].shape == (5, 4, 24)
    for row, (context, question, options) in enumerate(
        zip(contexts, QUESTIONS, OPTIONS, strict=True)
    ):
        for column, option in enumerate(options):
            expected = encode_choice_reference(
                tokenizer, context, question, option, 24, 8, per_underscore
            )
            for name, values in expected.items():
                assert batch[name][row, column].numpy().tolist() == values, (row, column, name)
    # Empty options are padding: all zeros, what the model masks.
    assert not batch["input_mask"][0, 2].numpy().any()


def test_choice_features_check_lengths_and_round_trip(tiny_model_file):
    with pytest.raises(ValueError, match=r"max_qa_length must be in \[1, seq_length - 3 = 13\]"):
        ChoiceFeatures(tiny_model_file, 16, 14)
    layer = ChoiceFeatures(tiny_model_file, 16, 5, blank_per_underscore=True)
    config = layer.get_config()
    assert (config["seq_length"], config["max_qa_length"], config["blank_per_underscore"]) == (
        16,
        5,
        True,
    )
