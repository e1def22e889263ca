"""Vocabulary extension: old ids, scores and normalization kept; a word's ids change only where
a new piece covers it; the report; refusals before anything is written."""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest
from sentencepiece import sentencepiece_model_pb2

from albert_tf.errors import UserError
from albert_tf.tokenization.model_proto import read_model_proto
from albert_tf.tokenization.piece_spelling import PieceSpeller, normal_score_range
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from albert_tf.tokenization.vocabulary_extension import REPORT_SUFFIX, extend_sentencepiece
from tests.commands import command_line
from tests.conftest import REPO_ROOT, SAMPLE_TEXT
from tests.domain_text import DOMAIN_LINES, write_domain_text

NEW_PIECES = 40


@pytest.fixture(scope="module")
def domain_file(tmp_path_factory) -> str:
    return write_domain_text(tmp_path_factory.mktemp("domain"))


@pytest.fixture(scope="module")
def extension(tiny_model_file, domain_file, tmp_path_factory):
    prefix = tmp_path_factory.mktemp("extended") / "medical"
    return extend_sentencepiece(
        tiny_model_file, [domain_file], NEW_PIECES, str(prefix), general_files=[str(SAMPLE_TEXT)]
    )


def test_old_pieces_keep_their_ids_scores_and_the_normalization(tiny_model_file, extension):
    old, new = read_model_proto(tiny_model_file), read_model_proto(extension.model_file)
    size = len(old.pieces)
    assert extension.old_size == size and len(new.pieces) == size + NEW_PIECES
    for piece_id, (a, b) in enumerate(zip(old.pieces, new.pieces[:size], strict=True)):
        assert (a.piece, a.score, a.type) == (b.piece, b.score, b.type), piece_id
    assert new.normalizer_spec == old.normalizer_spec
    assert new.denormalizer_spec == old.denormalizer_spec
    assert new.trainer_spec.vocab_size == size + NEW_PIECES
    added = new.pieces[size:]
    assert tuple(p.piece for p in added) == extension.new_pieces
    assert not {p.piece for p in added} & {p.piece for p in old.pieces}
    low, high = normal_score_range(old, size)
    assert all(p.type == p.NORMAL and low <= p.score <= high for p in added)
    # Written in order: no temporary directory left; the vocab lists every piece.
    directory = os.path.dirname(extension.model_file)
    assert sorted(os.listdir(directory)) == [
        f"medical{s}" for s in (REPORT_SUFFIX, ".model", ".vocab")
    ]
    with open(extension.model_file[: -len(".model")] + ".vocab", encoding="utf-8") as f:
        assert [line.split("\t")[0] for line in f] == [p.piece for p in new.pieces]


def test_domain_words_and_unknown_characters_become_new_pieces(extension):
    assert {"▁cardio", "▁angio", "心"} <= set(extension.new_pieces)
    # Each new piece wins the string it spells: its own segmentation is itself.
    speller = PieceSpeller(read_model_proto(extension.model_file))
    for piece_id, piece in enumerate(extension.new_pieces, start=extension.old_size):
        assert speller.spell(piece).ids == (piece_id,), piece


def test_a_word_changes_only_where_a_new_piece_covers_it(
    tiny_model_file, extension, all_test_strings
):
    old = AlbertTokenizer(tiny_model_file)
    new = AlbertTokenizer(extension.model_file)
    texts = all_test_strings + DOMAIN_LINES
    changed = 0
    for text in texts:
        for before, after in zip(_words(old, text), _words(new, text), strict=True):
            if before != after:
                changed += 1
                assert max(after) >= extension.old_size, (text, before, after)
    assert changed > 100  # the domain lines change: the check above is not vacuous
    # The in-graph tokenizer (serving, exports) cuts the extended model the same way.
    in_graph = new.tf_tokenize(texts).to_list()
    assert in_graph == [new.encode(text) for text in texts]


def _words(tokenizer: AlbertTokenizer, text: str) -> list[list[int]]:
    words: list[list[int]] = []
    for piece_id in tokenizer.encode(text):
        if tokenizer.id_to_piece(piece_id).startswith("▁") or not words:
            words.append([])
        words[-1].append(piece_id)
    return words


def test_the_report_measures_pieces_per_word_before_and_after(extension):
    report = json.loads(open(extension.model_file[: -len(".model")] + REPORT_SUFFIX).read())
    assert report == extension.report
    domain, general = report["domain"], report["general"]
    assert domain["pieces_per_word"]["after"] < 0.8 * domain["pieces_per_word"]["before"]
    assert domain["unknown_share"]["after"] < domain["unknown_share"]["before"]
    assert domain["changed_without_new_piece"] == general["changed_without_new_piece"] == 0
    assert general["lines"] > 4000 and 0.9 < general["words_unchanged"] < 1.0
    assert general["pieces_per_word"]["after"] <= general["pieces_per_word"]["before"]
    assert report["new_pieces_used_on_domain"] > NEW_PIECES // 2


def _rewritten(tiny_model_file, tmp_path, change) -> str:
    proto = read_model_proto(tiny_model_file)
    change(proto)
    path = tmp_path / "rewritten.model"
    path.write_bytes(proto.SerializeToString())
    return str(path)


def _keras_hub_normalizer(proto):
    proto.normalizer_spec.name = "albert_tf_nmt_nfkc_lowercase"


def _bpe(proto):
    proto.trainer_spec.model_type = sentencepiece_model_pb2.TrainerSpec.BPE


def _no_mask(proto):
    proto.pieces[4].piece = "[MSK]"


@pytest.mark.parametrize(
    "change, kwargs, match",
    [
        (_keras_hub_normalizer, {}, "not a built-in SentencePiece rule"),
        (_bpe, {}, "a BPE SentencePiece model"),
        (_no_mask, {}, r"id 4 is '\[MSK\]'"),
        (lambda proto: None, dict(do_lower_case=False), "the model is uncased"),
        (lambda proto: None, dict(new_pieces=0), "must be positive"),
    ],
)
def test_models_extension_cannot_keep_are_refused_before_writing(
    tiny_model_file, domain_file, tmp_path, change, kwargs, match
):
    model_file = _rewritten(tiny_model_file, tmp_path, change)
    kwargs = {"new_pieces": 10, **kwargs}
    with pytest.raises(UserError, match=match) as error:
        extend_sentencepiece(
            model_file, [domain_file], model_prefix=str(tmp_path / "out" / "m"), **kwargs
        )
    assert "\n" not in str(error.value)
    assert not (tmp_path / "out").exists()


def test_a_small_domain_text_cannot_give_many_pieces(tiny_model_file, tmp_path):
    (tmp_path / "tiny.txt").write_text("the cardiology ward\n" * 20, encoding="utf-8")
    with pytest.raises(UserError, match="yields only"):
        extend_sentencepiece(
            tiny_model_file, [str(tmp_path / "tiny.txt")], 500, str(tmp_path / "m")
        )
    assert sorted(os.listdir(tmp_path)) == ["tiny.txt"]


def test_command_extends_and_prints_the_report(tiny_model_file, domain_file, tmp_path):
    prefix = tmp_path / "cmd"
    result = subprocess.run(
        command_line(
            "tokenizer",
            f"--extend={tiny_model_file}",
            f"--input_files={domain_file}",
            "--new_pieces=30",
            f"--model_prefix={prefix}",
        ),
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "300 + 30 pieces (new ids from 300)" in result.stdout
    assert "domain" in result.stdout and "pieces/word" in result.stdout
    assert len(read_model_proto(f"{prefix}.model").pieces) == 330
    assert np.isclose(json.loads((tmp_path / f"cmd{REPORT_SUFFIX}").read_text())["new_pieces"], 30)
