"""Dynamic masking: invariants, the builder's distribution, determinism, the pipeline."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.data.masking import MaskingOptions, mask_instances
from albert_tf.data.records import serialize_examples
from albert_tf.inputs.dynamic_masking import (
    CLS_ID,
    FIRST_NORMAL_ID,
    MASK_ID,
    SEP_ID,
    dynamic_mask_fn,
    original_input_ids,
)
from albert_tf.inputs.pretrain_input import check_records, pretrain_dataset

SEQ, PRED, VOCAB = 32, 6, 100
OPTIONS = MaskingOptions(max_predictions_per_seq=PRED, masked_lm_prob=0.15, ngram=3)


def _records(
    num_records: int, seed: int, seq: int = SEQ, pred: int = PRED, min_length: int = 6
) -> dict:
    """`[CLS] A [SEP] B [SEP]` records with random word boundaries (a continuation piece may
    follow [CLS]/[SEP]) and static masks already applied, as the offline builder writes."""
    rng = np.random.default_rng(seed)
    fields = {
        name: np.zeros((num_records, seq), np.int64)
        for name in ("input_ids", "input_mask", "segment_ids", "token_boundary")
    }
    originals = np.zeros((num_records, seq), np.int64)
    positions = np.zeros((num_records, pred), np.int64)
    labels = np.zeros((num_records, pred), np.int64)
    weights = np.zeros((num_records, pred), np.float32)
    for row in range(num_records):
        length = rng.integers(min_length, seq + 1)
        first_sep = rng.integers(2, length - 2)
        ids = rng.integers(FIRST_NORMAL_ID, VOCAB, size=length)
        ids[[0, first_sep, length - 1]] = [CLS_ID, SEP_ID, SEP_ID]
        boundary = rng.random(length) < 0.6
        boundary[[0, first_sep, length - 1]] = True
        candidates = np.flatnonzero(ids >= FIRST_NORMAL_ID)
        num_chosen = rng.integers(1, min(pred, len(candidates)) + 1)
        chosen = np.sort(rng.choice(candidates, num_chosen, replace=False))
        originals[row, :length] = ids
        masked_ids = ids.copy()
        masked_ids[chosen] = np.where(rng.random(len(chosen)) < 0.8, MASK_ID, ids[chosen])
        fields["input_ids"][row, :length] = masked_ids
        fields["input_mask"][row, :length] = 1
        fields["segment_ids"][row, first_sep + 1 : length] = 1
        fields["token_boundary"][row, :length] = boundary
        positions[row, : len(chosen)] = chosen
        labels[row, : len(chosen)] = ids[chosen]
        weights[row, : len(chosen)] = 1.0
    return dict(
        fields,
        masked_lm_positions=positions,
        masked_lm_ids=labels,
        masked_lm_weights=weights,
        next_sentence_labels=rng.integers(0, 2, size=(num_records, 1)),
        originals=originals,
    )


def _tensors(records: dict) -> dict[str, tf.Tensor]:
    return {name: tf.constant(value) for name, value in records.items() if name != "originals"}


def _words(records: dict) -> np.ndarray:
    """Word number of each piece ([N, L]; -1 for [CLS]/[SEP]/padding)."""
    originals = records["originals"]
    candidate = (records["input_mask"] > 0) & (originals != CLS_ID) & (originals != SEP_ID)
    previous = np.pad(candidate[:, :-1], [(0, 0), (1, 0)])
    starts = candidate & ((records["token_boundary"] > 0) | ~previous)
    return np.where(candidate, np.cumsum(starts, axis=1) - 1, -1)


def _budget(records: dict, prob: float = 0.15, pred: int = PRED) -> np.ndarray:
    return MaskingOptions(max_predictions_per_seq=pred, masked_lm_prob=prob).budget(
        records["input_mask"].sum(axis=1)
    )


@pytest.fixture(scope="module")
def records():
    return _records(400, seed=0)


@pytest.fixture(scope="module")
def masked(records):
    mask = dynamic_mask_fn(OPTIONS, VOCAB, seed=7)
    output = mask(tf.constant(0, tf.int64), _tensors(records))
    return {name: value.numpy() for name, value in output.items()}


def test_original_input_ids_undoes_the_static_masks(records):
    restored = original_input_ids(_tensors(records)).numpy()
    np.testing.assert_array_equal(restored, records["originals"])


def test_outputs_keep_the_schema_and_pass_other_features_through(records, masked):
    assert "token_boundary" not in masked
    for name in ("input_mask", "segment_ids", "next_sentence_labels"):
        np.testing.assert_array_equal(masked[name], records[name])
    for name in ("input_ids", "masked_lm_positions", "masked_lm_ids"):
        assert masked[name].dtype == np.int64  # the input dtype
    assert masked["masked_lm_weights"].dtype == np.float32
    assert masked["masked_lm_positions"].shape == (400, PRED)


def test_positions_sorted_zero_padded_labels_are_the_original_pieces(records, masked):
    weights = masked["masked_lm_weights"]
    counts = weights.sum(axis=1).astype(int)
    for row, count in enumerate(counts):
        positions = masked["masked_lm_positions"][row]
        np.testing.assert_array_equal(weights[row], np.arange(PRED) < count)
        assert np.all(np.diff(positions[:count]) > 0)
        assert not positions[count:].any() and not masked["masked_lm_ids"][row, count:].any()
        np.testing.assert_array_equal(
            masked["masked_lm_ids"][row, :count], records["originals"][row, positions[:count]]
        )


def test_budget_and_never_specials_or_padding(records, masked):
    counts = masked["masked_lm_weights"].sum(axis=1)
    budget = _budget(records)
    # (0 happens: a budget of 1 with only multi-piece words, as in the offline builder.)
    assert np.all(counts <= budget)
    assert counts.sum() > 0.9 * budget.sum()  # whole words almost always fill it
    rows = np.repeat(np.arange(len(counts)), PRED)
    positions = masked["masked_lm_positions"].reshape(-1)
    real = masked["masked_lm_weights"].reshape(-1) > 0
    original = records["originals"][rows, positions][real]
    assert not np.isin(original, [CLS_ID, SEP_ID]).any()
    assert records["input_mask"][rows, positions][real].all()


def test_words_are_masked_whole_and_other_pieces_are_untouched(records, masked):
    words = _words(records)
    is_masked = np.zeros_like(words, dtype=bool)
    rows = np.repeat(np.arange(len(words)), PRED)
    real = masked["masked_lm_weights"].reshape(-1) > 0
    is_masked[rows[real], masked["masked_lm_positions"].reshape(-1)[real]] = True
    multi_piece_words = 0
    for row in range(len(words)):
        for word in np.unique(words[row][words[row] >= 0]):
            pieces = is_masked[row][words[row] == word]
            assert pieces.all() or not pieces.any(), (row, word)
            multi_piece_words += len(pieces) > 1 and pieces.all()
    assert multi_piece_words > 50  # the test data does mask multi-piece words
    np.testing.assert_array_equal(masked["input_ids"][~is_masked], records["originals"][~is_masked])


def test_replacements_are_80_mask_10_kept_10_random_normal_pieces():
    records = _records(2000, seed=1)
    output = dynamic_mask_fn(OPTIONS, VOCAB, seed=3)(tf.constant(5, tf.int64), _tensors(records))
    real = output["masked_lm_weights"].numpy() > 0
    positions = output["masked_lm_positions"].numpy()
    new_ids = np.take_along_axis(output["input_ids"].numpy(), positions, axis=1)[real]
    labels = output["masked_lm_ids"].numpy()[real]
    assert len(new_ids) > 5000
    is_mask, kept = new_ids == MASK_ID, new_ids == labels
    random = ~is_mask & ~kept
    assert abs(is_mask.mean() - 0.8) < 0.02
    assert abs(kept.mean() - 0.1) < 0.015  # (+1/95: a random draw equal to the label)
    assert abs(random.mean() - 0.1) < 0.015
    assert new_ids[random].min() >= FIRST_NORMAL_ID and new_ids[random].max() < VOCAB


def test_same_random_process_as_the_offline_builder():
    """The distribution of masked position sets matches `albert_tf.data.masking` (the
    offline builder's sequential algorithm), n-grams ending at [SEP] included: letting
    them cross it moves this distance to about 0.07."""
    num_rows, seq = 20_000, 16
    ids = np.array([2, 10, 11, 12, 3, 20, 21, 22, 23, 24, 25, 3, 0, 0, 0, 0])
    boundary = np.array([1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0])
    mask = (ids > 0).astype(np.int64)
    features = {
        "input_ids": np.tile(ids, (num_rows, 1)),
        "input_mask": np.tile(mask, (num_rows, 1)),
        "segment_ids": np.tile((np.arange(seq) > 4) * mask, (num_rows, 1)),
        "token_boundary": np.tile(boundary, (num_rows, 1)),
    }
    options = MaskingOptions(max_predictions_per_seq=PRED, masked_lm_prob=0.25)
    offline = mask_instances(
        features, options, CLS_ID, SEP_ID, MASK_ID, np.arange(5, VOCAB), np.random.default_rng(0)
    )
    empty = np.zeros((num_rows, PRED), np.int64)
    dynamic = dynamic_mask_fn(options, VOCAB, seed=1)(
        tf.constant(0, tf.int64),
        _tensors(
            dict(
                features,
                masked_lm_positions=empty,
                masked_lm_ids=empty,
                masked_lm_weights=empty.astype(np.float32),
            )
        ),
    )

    def pattern_counts(positions, weights):
        return Counter(tuple(p[w > 0]) for p, w in zip(positions, weights, strict=True))

    expected = pattern_counts(offline.positions, offline.weights)
    actual = pattern_counts(
        dynamic["masked_lm_positions"].numpy(), dynamic["masked_lm_weights"].numpy()
    )
    distance = sum(abs(expected[k] - actual[k]) for k in expected | actual) / (2 * num_rows)
    assert len(expected) > 10 and distance < 0.035


def test_reproducible_from_seed_and_index(records):
    features = _tensors(records)

    def positions(seed, index):
        mask = dynamic_mask_fn(OPTIONS, VOCAB, seed=seed)
        return mask(tf.constant(index, tf.int64), features)["masked_lm_positions"].numpy()

    np.testing.assert_array_equal(positions(1, 4), positions(1, 4))
    assert (positions(1, 4) != positions(1, 5)).any(axis=1).mean() > 0.8
    assert (positions(1, 4) != positions(2, 4)).any(axis=1).mean() > 0.8


def test_single_records_in_an_unbatched_pipeline(records):
    features = {k: v[:8] for k, v in _tensors(records).items()}
    dataset = (
        tf.data.Dataset.from_tensor_slices(features)
        .enumerate()
        .map(dynamic_mask_fn(OPTIONS, VOCAB, seed=1))
    )
    assert dataset.element_spec["input_ids"].shape == (SEQ,)
    assert dataset.element_spec["masked_lm_positions"].shape == (PRED,)
    counts = [int(e["masked_lm_weights"].numpy().sum()) for e in dataset]
    assert (
        all(c <= b for c, b in zip(counts, _budget(records)[:8], strict=True)) and sum(counts) > 8
    )


def test_bad_arguments_are_reported(records):
    with pytest.raises(ValueError, match="first_normal_id 5 must be in"):
        dynamic_mask_fn(OPTIONS, vocab_size=5, seed=1)
    features = _tensors(records)
    del features["token_boundary"]
    with pytest.raises(ValueError, match="needs the features \\['token_boundary'\\]"):
        dynamic_mask_fn(OPTIONS, VOCAB, seed=1)(tf.constant(0, tf.int64), features)


# -- in pretrain_dataset ---------------------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("dynamic")
    paths = []
    for shard in range(2):
        records = _records(20, seed=10 + shard, min_length=SEQ - 4)  # many possible masks
        del records["originals"]
        path = str(directory / f"part-{shard}.tfrecord")
        with tf.io.TFRecordWriter(path) as writer:
            for record in serialize_examples(records):
                writer.write(record)
        paths.append(path)
    return paths


def _batches(files, num_batches, seed=3, start_batch=0):
    dataset = pretrain_dataset(
        files,
        8,
        SEQ,
        PRED,
        is_training=True,
        seed=seed,
        start_batch=start_batch,
        shuffle_buffer_size=16,
        dynamic_masking=True,
        vocab_size=VOCAB,
    )
    assert dataset.element_spec["input_ids"].shape == (8, SEQ)
    assert dataset.element_spec["masked_lm_positions"].shape == (8, PRED)
    assert "token_boundary" not in dataset.element_spec
    return [{k: v.numpy() for k, v in batch.items()} for batch in dataset.take(num_batches)]


@pytest.mark.slow  # Over 5 s: tf.data pipelines over epochs.
def test_pipeline_masks_change_every_epoch_and_resume_exactly(files):
    batches = _batches(files, 10)  # 80 records: each of the 40 twice
    again = _batches(files, 10)
    resumed = _batches(files, 4, start_batch=6)
    for name in ("input_ids", "masked_lm_positions"):
        np.testing.assert_array_equal(
            np.stack([b[name] for b in batches]), np.stack([b[name] for b in again])
        )
        np.testing.assert_array_equal(
            np.stack([b[name] for b in batches[6:]]), np.stack([b[name] for b in resumed])
        )
    masks_by_record: dict[tuple, list[tuple]] = {}
    for batch in batches:
        originals = original_input_ids(batch).numpy()
        for row, original in enumerate(originals):
            masks_by_record.setdefault(tuple(original), []).append(
                tuple(batch["masked_lm_positions"][row])
            )
    # The shuffle buffer spans the epoch boundary: most records come twice, a few 1 or 3 times.
    repeated = [masks for masks in masks_by_record.values() if len(masks) >= 2]
    assert len(masks_by_record) == 40 and len(repeated) > 30
    assert sum(masks[0] != masks[1] for masks in repeated) > 0.9 * len(repeated)


def test_pipeline_checks_its_arguments_and_records(files, tmp_path):
    with pytest.raises(ValueError, match="dynamic_masking needs vocab_size"):
        pretrain_dataset(files, 8, SEQ, PRED, True, dynamic_masking=True)
    path = str(tmp_path / "no-boundary.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for record in serialize_examples({k: v[:4] for k, v in _records(4, seed=0).items()}):
            example = tf.train.Example.FromString(record)
            del example.features.feature["token_boundary"]
            writer.write(example.SerializeToString())
    check_records(path, SEQ, PRED, VOCAB)
    with pytest.raises(ValueError, match="has no feature 'token_boundary'"):
        check_records(path, SEQ, PRED, VOCAB, require_token_boundary=True)
