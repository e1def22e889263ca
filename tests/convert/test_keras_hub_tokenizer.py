"""Tokenizer parity: keras-hub's AlbertTokenizer on a preset's model vs albert_tf's tokenizer."""

from __future__ import annotations

import keras_hub
import pytest
import sentencepiece as spm
import tensorflow as tf
from sentencepiece import sentencepiece_model_pb2

from albert_tf.convert.keras_hub_tokenizer import normalizing_model_proto
from albert_tf.tokenization import AlbertTokenizer, normalize_text
from tests.conftest import SAMPLE_TEXT

# keras-hub's import and the preset model's normalizer (compiled over all of Unicode) take ~6 s.
pytestmark = pytest.mark.slow

# Cased, accented, compatibility and odd-whitespace text, composed and decomposed Hangul and
# Oriya, literal special tokens: all as albert_tf tokenizes them.
EXTRA_STRINGS = [
    "Café NAÏVE Ångström ﬁ ｆｕｌｌ　ＷＩＤＴＨ ① ǅemal İstanbul ẞ",
    "a (b) c-d 1,725 £ 4 € x.y ``quoted''",
    "multiple   spaces\t\ttabs\nnew\r\nlines\u2028\u00a0\x1c\x85 zero\u200bwidth soft\u00adhyphen",
    "e\u0301 a\u0308 \u1100\u1161\u11a8 \uac00\u11a8 \u0b47\u0b3e \u0b4b 한국어 中文 😀",
    "NUL\x00byte",
    "the [MASK] cat [mask]\t[Sep] x[CLS]y",
    "",
]


def keras_hub_ids(proto: bytes, texts: list[str]) -> list[list[int]]:
    ids = keras_hub.models.AlbertTokenizer(proto=proto)(tf.constant(texts))
    return [list(row) for row in (ids if isinstance(ids, list) else ids.to_list())]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return SAMPLE_TEXT.read_text(encoding="utf-8").split("\n") + EXTRA_STRINGS


@pytest.fixture(scope="module")
def preset_proto(small_model_file) -> bytes:
    return normalizing_model_proto(small_model_file)


def normalizer(proto: bytes) -> spm.SentencePieceNormalizer:
    """The model's normalization as SentencePiece applies it before segmenting."""
    return spm.SentencePieceNormalizer(
        model_proto=proto,
        add_dummy_prefix=True,
        remove_extra_whitespaces=True,
        escape_whitespaces=True,
    )


def test_keras_hub_ids_equal_albert_tf_ids(small_model_file, preset_proto, texts):
    ours = AlbertTokenizer(small_model_file)
    theirs = keras_hub_ids(preset_proto, texts)
    assert [text for text, ids in zip(texts, theirs, strict=True) if ours.encode(text) != ids] == []
    # Why the preset's model normalizes: keras-hub on the bare model lowercases nothing.
    with open(small_model_file, "rb") as f:
        bare = keras_hub_ids(f.read(), texts)
    differing = sum(ours.encode(text) != ids for text, ids in zip(texts, bare, strict=True))
    assert differing > 0.9 * len(texts) > 4500


def test_pieces_and_scores_are_the_model_s(small_model_file, preset_proto):
    original, preset = sentencepiece_model_pb2.ModelProto(), sentencepiece_model_pb2.ModelProto()
    with open(small_model_file, "rb") as f:
        original.ParseFromString(f.read())
    preset.ParseFromString(preset_proto)
    assert [(p.piece, p.score) for p in preset.pieces] == [
        (p.piece, p.score) for p in original.pieces
    ]
    user_defined = sentencepiece_model_pb2.ModelProto.SentencePiece.USER_DEFINED
    assert [p.type for p in preset.pieces[2:5]] == [user_defined] * 3  # [CLS] [SEP] [MASK]
    assert preset.normalizer_spec.name == "albert_tf_nmt_nfkc_lowercase"


def test_the_documented_differences(small_model_file, preset_proto):
    with open(small_model_file, "rb") as f:
        model = f.read()
    reference, preset = normalizer(model), normalizer(preset_proto)
    # Python's str.lower writes a word-final capital sigma as ς; a per-character rule cannot.
    assert reference.normalize(normalize_text("ΟΔΟΣ")) == "▁οδος"
    assert preset.normalize("ΟΔΟΣ") == "▁οδοσ"
    # A special token first in a text keeps the "▁" piece albert_tf drops, so does one after
    # several whitespace characters.
    ours = AlbertTokenizer(small_model_file)
    texts = ["[MASK] is", "a  [SEP]"]
    theirs = keras_hub_ids(preset_proto, texts)
    assert [ours.encode(text) for text in texts] == [
        [ours.mask_id, *ours.encode("is")],
        [*ours.encode("a"), ours.sep_id],
    ]
    assert theirs == [
        [ours.space_id, ours.mask_id, *ours.encode("is")],
        [*ours.encode("a"), ours.space_id, ours.sep_id],
    ]


def test_cased_models_keep_their_case(small_model_file):
    preset = normalizer(normalizing_model_proto(small_model_file, do_lower_case=False))
    with open(small_model_file, "rb") as f:
        reference = normalizer(f.read())
    for text in EXTRA_STRINGS:
        expected = reference.normalize(normalize_text(text, do_lower_case=False))
        if "[" not in text:  # The special tokens take the space before them (module docstring).
            assert preset.normalize(text) == expected
    assert preset.normalize("Café [MASK]") == "▁Cafe[MASK]"
