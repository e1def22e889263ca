"""Chinese text through the tokenizer: the in-graph normalization and ids equal the Python
ones (full-width forms, CJK punctuation, kana, compatibility characters), on real reviews and
news sentences and on hand-made cases; what NFKD does to CJK text is pinned here."""

from __future__ import annotations

import sentencepiece as spm
import tensorflow as tf

from albert_tf.tokenization.model_proto import UNK_ID, joined_cjk_share, without_dummy_prefix
from albert_tf.tokenization.normalize import normalize_text, normalize_text_tf
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from albert_tf.tokenization.train import train_sentencepiece
from albert_tf.tokenization.unspaced_scripts import has_unspaced
from tests.conftest import CHINESE_DATA, CHINESE_VOCAB_SIZE

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


def test_cjk_character_pieces_give_running_text_the_tagger_ids(
    chinese_corpus, chinese_model_file, tmp_path
):
    """With `cjk_character_pieces` no piece spans two CJK characters, so a sentence encodes to
    exactly the ids a character-level tagger reads, one character at a time; the default
    vocabulary joins characters into pieces (what pretraining read, the tagger never did)."""
    sentences = _chinese_lines()[:50]

    def running_and_per_character(model_file):
        with open(model_file, "rb") as handle:
            characters = spm.SentencePieceProcessor(model_proto=without_dummy_prefix(handle.read()))
        running = spm.SentencePieceProcessor(model_file=model_file)
        pairs = []
        for text in sentences:
            text = "".join(ch for ch in normalize_text(text) if has_unspaced(ch))
            ids = [i for i in running.encode(text) if running.id_to_piece(i) != "▁"]
            per_character = [characters.encode(ch)[0] for ch in text]
            # SentencePiece encodes a run of unknown characters as one <unk>.
            per_character = [
                i
                for k, i in enumerate(per_character)
                if not (i == UNK_ID == per_character[k - 1] and k)
            ]
            pairs.append((ids, per_character))
        return pairs

    split = train_sentencepiece(
        [chinese_corpus],
        str(tmp_path / "split"),
        vocab_size=CHINESE_VOCAB_SIZE,
        character_coverage=0.9995,
        cjk_character_pieces=True,
        hard_vocab_limit=False,  # Characters set apart leave fewer candidate pieces.
    )
    processor = spm.SentencePieceProcessor(model_file=split)
    pieces = [processor.id_to_piece(i) for i in range(processor.get_piece_size())]
    assert not [p for p in pieces if sum(map(has_unspaced, p)) > 1]
    assert any(len(p) > 1 and p.isascii() and p.isalpha() for p in pieces)  # Latin stays whole
    assert all(ids == chars for ids, chars in running_and_per_character(split))
    # `chinese_model_file`: the same corpus and size, characters joined.
    joined = running_and_per_character(chinese_model_file)
    # What `tag --character_level` warns of when fine-tuning an encoder from the tokenizer.
    with open(split, "rb") as one, open(chinese_model_file, "rb") as other:
        assert joined_cjk_share(one.read()) == 0 < joined_cjk_share(other.read())
    assert sum(len(ids) for ids, _ in joined) < 0.95 * sum(len(chars) for _, chars in joined)
