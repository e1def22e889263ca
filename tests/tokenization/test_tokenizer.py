"""AlbertTokenizer: Python vs in-graph ids, special tokens, word starts, batch encoding."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

from albert_tf.tokenization.normalize import normalize_text
from albert_tf.tokenization.tokenizer import AlbertTokenizer


def _assert_python_matches_graph(tokenizer, texts):
    expected = [tokenizer.encode(text) for text in texts]
    actual = tokenizer.tf_tokenize(tf.constant(texts))
    assert actual.dtype == tf.int32
    mismatches = [
        (t, e, a) for t, e, a in zip(texts, expected, actual.to_list(), strict=True) if e != a
    ]
    assert not mismatches, mismatches[:3]


def test_python_and_graph_ids_agree_on_every_line(tokenizer, all_test_strings):
    _assert_python_matches_graph(tokenizer, all_test_strings)


def test_python_and_graph_ids_agree_without_lowercasing(cased_tokenizer, all_test_strings):
    _assert_python_matches_graph(cased_tokenizer, all_test_strings)


def test_constants_and_layout(tokenizer):
    ids = (tokenizer.pad_id, tokenizer.unk_id, tokenizer.cls_id, tokenizer.sep_id)
    assert ids + (tokenizer.mask_id,) == (0, 1, 2, 3, 4)
    pieces = [tokenizer.id_to_piece(i) for i in range(5)]
    assert pieces == ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]
    assert tokenizer.piece_to_id("[MASK]") == 4
    assert tokenizer.vocab_size == 1000


def test_literal_special_tokens_encode_to_their_ids(tokenizer, cased_tokenizer):
    assert tokenizer.encode("[MASK]") == [4]
    ids = tokenizer.encode("The [mask] sat, [CLS] x [SEP]")
    assert ids.count(4) == 1 and ids.count(2) == 1 and ids.count(3) == 1
    # The space before a special token is not a piece of its own.
    assert tokenizer.tokenize("the [MASK] cat")[:2] == ["▁the", "[MASK]"]
    assert cased_tokenizer.encode("The [MASK]")[-1] == 4


def test_lowercasing_option(tokenizer, cased_tokenizer):
    assert tokenizer.tokenize("GAME") == tokenizer.tokenize("game")
    assert cased_tokenizer.tokenize("GAME") != cased_tokenizer.tokenize("game")
    assert "".join(cased_tokenizer.tokenize("The Game")).replace("▁", " ").strip() == "The Game"


def test_digit_comma_is_plain_sentencepiece_not_the_original_quirk(tokenizer):
    pieces = tokenizer.tokenize("67,")
    assert "".join(pieces) == "▁67,"
    assert pieces == [tokenizer.id_to_piece(i) for i in tokenizer.processor.encode("67,")]


def test_tokenize_decode_roundtrip(tokenizer, sample_lines):
    # Lines with unknown characters decode to " ⁇ "; SentencePiece's own normalizer drops U+FFFD.
    known = [
        line
        for line in sample_lines
        if tokenizer.unk_id not in tokenizer.encode(line) and "\ufffd" not in line
    ]
    assert len(known) > len(sample_lines) // 2
    for line in known:
        assert tokenizer.decode(tokenizer.encode(line)) == normalize_text(line)


def test_encode_batch_matches_encode(tokenizer, sample_lines):
    assert tokenizer.encode_batch(sample_lines) == [tokenizer.encode(s) for s in sample_lines]


def test_word_start_mask(tokenizer):
    """The original `_is_start_piece` rule, plus the special tokens."""
    mask = tokenizer.word_start_mask
    assert mask.shape == (tokenizer.vocab_size,) and mask.dtype == np.bool_
    punctuation = set('!"#$%&()*+,-./:;?@[\\]^_`{|}~')
    for piece_id in range(tokenizer.vocab_size):
        piece = tokenizer.id_to_piece(piece_id)
        expected = piece.startswith(("▁", "<")) or piece in punctuation or 2 <= piece_id <= 4
        assert mask[piece_id] == expected, piece
    assert not tokenizer.is_word_start(tokenizer.piece_to_id("at"))
    assert tokenizer.is_word_start(tokenizer.piece_to_id("▁the"))
    assert tokenizer.is_word_start(tokenizer.piece_to_id(","))
    assert tokenizer.is_word_start(tokenizer.mask_id)


def test_serialized_model_proto_loads_in_graph(tokenizer):
    import tensorflow_text as tf_text

    graph_tokenizer = tf_text.SentencepieceTokenizer(model=tokenizer.serialized_model_proto())
    assert int(graph_tokenizer.vocab_size()) == tokenizer.vocab_size


def test_missing_model_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="absent.model"):
        AlbertTokenizer(str(tmp_path / "absent.model"))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
        | st.sampled_from(["[MASK]", " [MASK] ", "67, ", "Ångström", "[sep]"]),
        min_size=1,
        max_size=12,
    ).map(lambda parts: [" ".join(parts), "".join(parts)])
)
def test_python_and_graph_ids_agree_on_random_text(tokenizer, texts):
    _assert_python_matches_graph(tokenizer, texts)
