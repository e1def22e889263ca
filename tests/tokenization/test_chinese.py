"""Chinese text through the tokenizer: the in-graph normalization and ids equal the Python
ones (full-width forms, CJK punctuation, kana, compatibility characters), on real reviews and
news sentences and on hand-made cases; what NFKD does to CJK text is pinned here."""

from __future__ import annotations

import tensorflow as tf

from albert_tf.tokenization.normalize import normalize_text, normalize_text_tf
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from tests.conftest import CHINESE_DATA

# (raw, normalized): what ALBERT's normalization (NFKD, combining marks dropped, lowercase)
# does to CJK text; docs/chinese.md lists the same.
CJK_CASES = [
    ("这本书很好。", "这本书很好。"),  # ideographs and 。 are kept
    ("好，真的！？：；（好）", "好,真的!?:;(好)"),  # full-width punctuation -> ASCII
    ("ＡＢＣ１２３　ｘ", "abc123 x"),  # full-width letters, digits, ideographic space
    ("、「」『』《》“”…—", "、「」『』《》“”...—"),  # CJK quotes and brackets are kept
    ("がぎぐ パピプ", "かきく ハヒフ"),  # kana lose their voicing marks (combining)
    ("ｶﾞｷﾞ ｱｲｳ", "カキ アイウ"),  # half-width kana -> full-width, marks dropped
    ("\uf900\u3280\u3220", "\u8c48一(一)"),  # compatibility ideographs, enclosed CJK
]


def _chinese_lines() -> list[str]:
    reviews = (CHINESE_DATA / "chnsenticorp" / "dev.tsv").read_text(encoding="utf-8")
    return [line.split("\t", 1)[1] for line in reviews.splitlines()[1:201]]


def test_what_normalization_does_to_cjk_text():
    for raw, normalized in CJK_CASES:
        assert normalize_text(raw) == normalized, raw


def test_in_graph_normalization_and_ids_equal_the_python_ones(chinese_model_file):
    texts = [raw for raw, _ in CJK_CASES] + _chinese_lines()
    graph = normalize_text_tf(tf.constant(texts)).numpy()
    mismatches = [
        text
        for text, value in zip(texts, graph, strict=True)
        if value.decode("utf-8") != normalize_text(text)
    ]
    assert not mismatches, mismatches[:3]
    tokenizer = AlbertTokenizer(chinese_model_file)
    graph_ids = tokenizer.tf_tokenize(tf.constant(texts)).to_list()
    assert graph_ids == tokenizer.encode_batch(texts)
    assert sum(map(len, graph_ids)) > 10_000  # real text: thousands of pieces
