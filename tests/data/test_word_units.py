"""Whole-word units: segmenter words mapped onto pieces, the segmenters, their errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from albert_tf.data.documents import Document
from albert_tf.data.sentence_encoder import SentenceEncoder
from albert_tf.data.tokenized_documents import tokenize_documents
from albert_tf.data.word_segmenters import check_word_segmenter, load_word_segmenter
from albert_tf.data.word_units import character_word_starts, sentence_units, word_starts
from albert_tf.errors import UserError
from albert_tf.tokenization.unspaced_scripts import code_points, has_unspaced


def _units(text, pieces, words, starting_ids=()):
    """(unit starts, whole-word flags) of `pieces` = [(id, begin, end)] of `text`."""
    ids, begins, ends = (np.array(column) for column in zip(*pieces, strict=True))
    mask = np.zeros(100, dtype=bool)
    mask[list(starting_ids)] = True
    codes = code_points(text)
    starts_of_words = (
        character_word_starts(codes) if words is None else word_starts(text, words, "test")
    )
    return sentence_units(codes, ids, begins, ends, mask, starts_of_words)


def test_a_word_of_several_pieces_is_one_unit_a_piece_over_two_words_joins_them():
    text = "北京欢迎你 new york"
    words = ["北京", "欢迎", "你", " ", "new", " ", "york"]
    # ▁北 | 京欢 (spans 北京|欢迎) | 迎 | 你 | ▁new | ▁y ork; ids 10, 14, 15 start with ▁.
    pieces = [(10, 0, 1), (11, 1, 3), (12, 3, 4), (13, 4, 5), (14, 5, 9), (15, 9, 11), (16, 11, 14)]
    starts, whole = _units(text, pieces, words, starting_ids=(10, 14, 15))
    assert starts.tolist() == [True, False, False, True, True, True, False]
    # 北京欢迎 (two words joined), 你, new, york (Latin: the ▁ rule, one word).
    assert whole.tolist() == [0, -1, -1, 1, 1, 1, -1]


def test_without_a_segmenter_every_cjk_character_is_a_word():
    text = "ab北京c"
    pieces = [(10, 0, 2), (11, 2, 4), (12, 4, 5)]  # ▁ab | 北京 | c
    starts, whole = _units(text, pieces, None, starting_ids=(10,))
    assert starts.tolist() == [True, True, True]  # c follows a CJK character: its own unit
    assert whole.tolist() == [1, 0, 1]  # 北京 is one piece over two character words


def test_a_bare_space_piece_joins_the_next():
    starts, whole = _units("你 好", [(10, 0, 1), (11, 1, 2), (12, 2, 3)], ["你", "好"], (10, 11))
    assert starts.tolist() == [True, True, False]
    assert whole.tolist() == [1, 1, -1]


def test_words_must_cover_the_text():
    assert word_starts("我们 喜欢", ["我们", "喜欢"], "x").nonzero()[0].tolist() == [0, 3]
    with pytest.raises(UserError, match="do not cover the text .word 1 '欢' is not the text"):
        word_starts("我们喜欢", ["我们", "欢"], "seg", where="corpus.txt:3")
    with pytest.raises(UserError, match=r"the words stop before '欢'\), corpus.txt:3"):
        word_starts("我们喜欢", ["我们", "喜"], "seg", where="corpus.txt:3")


def test_unspaced_scripts():
    assert not has_unspaced("Café naïve, 12 ½ — “quoted”")
    for text in ("中文", "かな", "カナ", "ภาษาไทย", "，", "。"):
        assert has_unspaced(text), text


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nonsense", "unknown word segmenter 'nonsense'"),
        ("no_such_module_xyz:cut", "module 'no_such_module_xyz' cannot be imported"),
        ("tests.data.segmenters:missing", "has no callable 'missing'"),
        ("command:no-such-program-xyz", "word segmenter command cannot be run"),
        ("command:false", "exited with status 1"),
        ("tests.data.segmenters:drops_last_character", "do not cover the text"),
    ],
)
def test_segmenter_errors(spec, message):
    with pytest.raises(UserError, match=message):
        check_word_segmenter(spec)


def test_jieba_not_installed_is_one_clear_error(monkeypatch):
    load_word_segmenter.cache_clear()
    monkeypatch.setitem(sys.modules, "jieba", None)  # import jieba -> ImportError
    try:
        with pytest.raises(UserError, match=r"'jieba' is not installed.*albert_tf\[chinese\]"):
            check_word_segmenter("jieba")
    finally:
        load_word_segmenter.cache_clear()


def test_python_and_command_segmenters_give_the_same_words():
    texts = ["北京 欢迎你", "ab"]
    python = load_word_segmenter("tests.data.segmenters:pairs").segment(texts)
    script = "import sys; [print(' '.join(line.split())) for line in sys.stdin]"
    command = load_word_segmenter(f'command:{sys.executable} -c "{script}"').segment(texts)
    assert python == [["北京", "欢迎", "你"], ["ab"]]
    assert command == [["北京", "欢迎你"], ["ab"]]
    jieba = check_word_segmenter("jieba")
    assert jieba.description().startswith("jieba 0.")
    assert jieba.segment(["我们在北京"]) == [["我们", "在", "北京"]]


def test_units_of_real_pieces(chinese_model_file):
    """Over a real tokenizer: jieba's units never cut a word; text without CJK keeps the
    original rule; a segmenter that fails on one sentence is named with file and line."""
    encoder = SentenceEncoder(chinese_model_file)
    documents = [
        Document(("我们藏有一册1945年油印的调查报告。", "Hello world, twice."), "a.txt", 7)
    ]
    batch = tokenize_documents(encoder, documents, 100, load_word_segmenter("jieba"))
    english = slice(int(batch.sentence_starts[1]), None)
    np.testing.assert_array_equal(
        batch.token_starts[english], encoder.word_start_mask[batch.token_ids[english]]
    )
    chinese = batch.sentence_lengths[0]
    ((ids, begins, ends),) = encoder.encode_with_offsets([documents[0].sentences[0]])
    np.testing.assert_array_equal(ids, batch.token_ids[:chinese])
    words = load_word_segmenter("jieba").segment([documents[0].sentences[0]])[0]
    word_edges = set(np.cumsum([len(word) for word in words]).tolist()) | {0}
    unit_edges = set(begins[batch.token_starts[:chinese]].tolist()) | {int(ends[-1])}
    assert unit_edges <= word_edges  # every unit edge is a word edge: no word is cut
    assert (batch.unit_words[:chinese] == 1).sum() >= len(unit_edges) - 3
    failing = load_word_segmenter("tests.data.segmenters:drops_on_rare_character")
    with pytest.raises(UserError, match="do not cover the text.*, a.txt:7, "):
        tokenize_documents(encoder, documents, 100, failing)
