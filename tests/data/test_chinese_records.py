"""Chinese records with jieba's words: the same from every builder and parallelism, units in
the statistics, dynamic masking on the same units, a failing segmenter leaves nothing."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.data.beam_builder import build_pretraining_data_beam
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
from albert_tf.data.masking import MaskingOptions
from albert_tf.data.word_units import piece_characters
from albert_tf.errors import UserError
from albert_tf.inputs.dynamic_masking import dynamic_mask_fn
from albert_tf.inputs.pretrain_input import pretraining_feature_spec
from albert_tf.inputs.statistics import (
    build_manifest_statistics,
    format_statistics,
    masked_record_lines,
    pretraining_data_statistics,
)
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from tests.data.test_beam_builder import IN_MEMORY, PRED, SEQ, _multiset
from tests.data.test_beam_builder import _options as beam_options


def _options(corpus, model, output_dir, **overrides) -> BuilderOptions:
    """The Beam tests' options (length 64, 3 shards, several batches), one dupe, jieba."""
    settings = dict(dupe_factor=1, batch_characters=4000, word_segmenter="jieba")
    return beam_options(corpus, model, output_dir, **{**settings, **overrides})


def _files(output_dir) -> dict[str, bytes]:
    names = sorted(name for name in os.listdir(output_dir) if name.endswith(".tfrecord"))
    return {name: (output_dir / name).read_bytes() for name in names}


@pytest.fixture(scope="module")
def jieba_records(tmp_path_factory, chinese_corpus, chinese_model_file):
    output_dir = tmp_path_factory.mktemp("jieba")
    manifest = build_pretraining_data(_options(chinese_corpus, chinese_model_file, output_dir))
    return output_dir, manifest


@pytest.mark.slow  # Over 5 s: two worker processes and a Beam pipeline, each loading jieba.
def test_same_records_for_any_parallelism_and_from_beam(
    jieba_records, tmp_path, chinese_corpus, chinese_model_file
):
    output_dir, manifest = jieba_records
    assert manifest["word_units"]["word_segmenter"].startswith("jieba 0.42")
    two = build_pretraining_data(
        _options(chinese_corpus, chinese_model_file, tmp_path / "two", parallelism=2)
    )
    assert _files(tmp_path / "two") == _files(output_dir)
    assert two["statistics"] == manifest["statistics"]
    beam = build_pretraining_data_beam(
        _options(chinese_corpus, chinese_model_file, tmp_path / "beam"), IN_MEMORY
    )
    assert _multiset(tmp_path / "beam") == _multiset(output_dir)
    assert beam["statistics"] == manifest["statistics"]
    assert beam["word_units"] == manifest["word_units"]


def test_units_in_the_statistics_with_and_without_the_segmenter(
    jieba_records, tmp_path, chinese_corpus, chinese_model_file
):
    output_dir, manifest = jieba_records
    characters = build_pretraining_data(
        _options(chinese_corpus, chinese_model_file, tmp_path, word_segmenter="none")
    )
    assert "every character is a word" in characters["word_units"]["rule"]
    words, chars = manifest["statistics"], characters["statistics"]
    for stats in (words, chars):
        assert 0.14 <= stats["masked_share_of_real_tokens"] <= 0.16
    # jieba's units are longer than characters, and nearly always exactly one of its words.
    assert chars["mean_characters_per_masked_unit"] < 1.5 < words["mean_characters_per_masked_unit"]
    assert words["whole_word_share_of_masked_units"] > 0.85
    assert 1.3 < words["mean_characters_per_word"] < 2.2
    assert chars["mean_characters_per_word"] is None  # no segmenter, no word length
    # data-stats reads the same from the records (and the manifest beside them).
    paths = sorted(str(path) for path in output_dir.glob("part-*"))
    tokenizer = AlbertTokenizer(chinese_model_file)
    stats = pretraining_data_statistics(
        paths, piece_characters=piece_characters(tokenizer.processor)
    )
    assert stats["masked_units"] == words["masked_units"]
    assert stats["mean_characters_per_masked_unit"] == pytest.approx(
        words["mean_characters_per_masked_unit"]
    )
    stats["build"] = build_manifest_statistics(paths)
    report = format_statistics(stats)
    assert "segmenter jieba 0.42" in report and "(original, WikiText-2: " not in report
    assert "masked units that are one word" in report
    lines = masked_record_lines(paths[0], tokenizer.processor, 3)
    assert len(lines) == 3 and all(line.startswith("[CLS]") and "⟦" in line for line in lines)


def _parsed(output_dir) -> dict[str, np.ndarray]:
    paths = sorted(str(path) for path in output_dir.glob("part-*"))
    records = list(tf.data.TFRecordDataset(paths).as_numpy_iterator())
    parsed = tf.io.parse_example(records, pretraining_feature_spec(SEQ, PRED))
    return {name: value.numpy() for name, value in parsed.items()}


def _masked_units_are_whole(features, positions, weights) -> int:
    """Checks every unit (`token_boundary` starts one) is masked whole or not at all; returns
    how many masked units have more than one piece."""
    masked = np.zeros(features["input_ids"].shape, dtype=bool)
    rows = np.nonzero(weights > 0)[0]
    masked[rows, positions[weights > 0]] = True
    starts = features["token_boundary"] > 0
    unit = np.cumsum(starts, axis=1)
    multi_piece = 0
    for row in range(len(masked)):
        for number in np.unique(unit[row][masked[row]]):
            pieces = masked[row][unit[row] == number]
            real = features["input_mask"][row][unit[row] == number] > 0
            assert pieces[real].all(), (row, number)
            multi_piece += int(real.sum() > 1)
    return multi_piece


def test_dynamic_masking_masks_the_records_units(jieba_records):
    output_dir, _ = jieba_records
    features = _parsed(output_dir)
    assert (
        _masked_units_are_whole(
            features, features["masked_lm_positions"], features["masked_lm_weights"]
        )
        > 20
    )
    options = MaskingOptions(max_predictions_per_seq=PRED)
    inputs = {name: tf.constant(value) for name, value in features.items()}
    again = dynamic_mask_fn(options, vocab_size=2000, seed=3)(tf.constant(0, tf.int64), inputs)
    positions = again["masked_lm_positions"].numpy()
    assert not np.array_equal(positions, features["masked_lm_positions"])  # new masks...
    multi_piece = _masked_units_are_whole(features, positions, again["masked_lm_weights"].numpy())
    assert multi_piece > 20  # ...over the same multi-piece units


def test_a_failing_segmenter_leaves_nothing(tmp_path, chinese_corpus, chinese_model_file):
    output_dir = tmp_path / "out"
    for spec, message in (
        ("tests.data.segmenters:drops_last_character", "do not cover the text"),
        ("tests.data.segmenters:drops_on_rare_character", r"do not cover the text.*corpus.txt:\d+"),
    ):
        options = _options(chinese_corpus, chinese_model_file, output_dir, word_segmenter=spec)
        with pytest.raises(UserError, match=message):
            build_pretraining_data(options)
        assert not output_dir.exists() and os.listdir(tmp_path) == []
