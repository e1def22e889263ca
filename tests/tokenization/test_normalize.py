"""normalize_text (original ALBERT preprocessing) and its in-graph twin normalize_text_tf."""

import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

from albert_tf.tokenization.normalize import normalize_text, normalize_text_tf


def test_original_preprocessing_examples():
    assert normalize_text("  Café\tNAÏVE \n Ångström ") == "cafe naive angstrom"
    assert normalize_text("Café NAÏVE", do_lower_case=False) == "Cafe NAIVE"
    assert normalize_text("ｆｕｌｌ ﬁ") == "full fi"  # NFKD compatibility folding
    assert normalize_text("") == ""
    assert normalize_text(" \t\n ") == ""


def test_quotes_are_kept_by_default_like_the_original():
    assert normalize_text("``a'' b") == "``a'' b"
    assert normalize_text("``a'' b", map_quotes=True) == '"a" b'


def test_special_tokens_keep_their_spelling_when_lowercasing():
    assert normalize_text("The [MASK] [Mask] [cls] [SEP]") == "the [MASK] [MASK] [CLS] [SEP]"
    assert normalize_text("The [mask]", do_lower_case=False) == "The [mask]"


@pytest.mark.parametrize("do_lower_case", [True, False])
@pytest.mark.parametrize("map_quotes", [False, True])
def test_tf_matches_python_on_every_line(all_test_strings, do_lower_case, map_quotes):
    expected = [normalize_text(s, do_lower_case, map_quotes) for s in all_test_strings]
    actual = normalize_text_tf(tf.constant(all_test_strings), do_lower_case, map_quotes)
    actual = [value.decode("utf-8") for value in actual.numpy()]
    mismatches = [
        (s, e, a) for s, e, a in zip(all_test_strings, expected, actual, strict=True) if e != a
    ]
    assert not mismatches, mismatches[:5]


def test_tf_keeps_shape_and_works_in_tf_function():
    texts = tf.constant([["A  B", "Ç"], ["", "[MASK] X"]])
    result = tf.function(normalize_text_tf)(texts)
    assert result.shape == (2, 2)
    assert result.numpy().tolist() == [[b"a b", b"c"], [b"", b"[MASK] x"]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), max_size=16))
def test_tf_matches_python_on_random_unicode(texts):
    expected = [normalize_text(text) for text in texts]
    actual = normalize_text_tf(tf.constant(texts, dtype=tf.string))
    assert [value.decode("utf-8") for value in actual.numpy()] == expected
