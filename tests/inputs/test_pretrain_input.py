"""The pretraining input pipeline: shapes, determinism, resume skip, sharding, checks."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.data.records import serialize_examples
from albert_tf.inputs.pretrain_input import (
    check_records,
    find_unreadable_file,
    pretrain_dataset,
    pretraining_feature_spec,
    record_files,
)
from tests.data.test_records import ORIGINAL_SPEC
from tests.data.test_records import PRED as ORIGINAL_PRED
from tests.data.test_records import SEQ as ORIGINAL_SEQ

SEQ, PRED, VOCAB = 16, 4, 64


def _features(num_records: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(5, VOCAB, size=(num_records, SEQ))
    return {
        "input_ids": ids,
        "input_mask": np.ones((num_records, SEQ), np.int64),
        "segment_ids": np.zeros((num_records, SEQ), np.int64),
        "token_boundary": np.ones((num_records, SEQ), np.int64),
        "masked_lm_positions": np.tile(np.arange(1, PRED + 1), (num_records, 1)),
        "masked_lm_ids": ids[:, 1 : PRED + 1],
        "masked_lm_weights": np.ones((num_records, PRED), np.float32),
        # The record's index, to follow records through the pipeline.
        "next_sentence_labels": np.zeros((num_records, 1), np.int64),
    }


def _write(path, features) -> str:
    with tf.io.TFRecordWriter(str(path)) as writer:
        for record in serialize_examples(features):
            writer.write(record)
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("input")
    return [_write(directory / f"part-{i}.tfrecord", _features(24, seed=i)) for i in range(4)]


def test_spec_matches_original():
    assert pretraining_feature_spec(ORIGINAL_SEQ, ORIGINAL_PRED) == ORIGINAL_SPEC


def _ids(dataset, num_batches):
    return [batch["input_ids"].numpy() for batch in dataset.take(num_batches)]


def test_training_batches_have_static_shapes_and_int32(files):
    dataset = pretrain_dataset(files, 8, SEQ, PRED, is_training=True, shuffle_buffer_size=16)
    spec = dataset.element_spec
    assert spec["input_ids"].shape == (8, SEQ) and spec["input_ids"].dtype == tf.int32
    assert spec["masked_lm_weights"].dtype == tf.float32
    assert spec["next_sentence_labels"].shape == (8,)
    assert "token_boundary" not in spec
    assert len(_ids(dataset, 40)) == 40  # repeats past the 96 records


def test_order_is_deterministic_and_start_batch_resumes_it(files):
    def make(start_batch=0):
        return pretrain_dataset(
            ",".join(files),
            8,
            SEQ,
            PRED,
            True,
            seed=3,
            start_batch=start_batch,
            shuffle_buffer_size=16,
        )

    first, again, resumed = _ids(make(), 20), _ids(make(), 20), _ids(make(start_batch=15), 5)
    np.testing.assert_array_equal(np.stack(first), np.stack(again))
    np.testing.assert_array_equal(np.stack(first[15:]), np.stack(resumed))
    assert not np.array_equal(
        first[0], _ids(pretrain_dataset(files, 8, SEQ, PRED, True, seed=4), 1)[0]
    )


def test_workers_read_disjoint_files(files):
    seen = []
    for worker in range(2):
        context = tf.distribute.InputContext(2, worker, 2)
        batches = _ids(pretrain_dataset(files, 8, SEQ, PRED, False, input_context=context), 100)
        assert batches[0].shape == (4, SEQ)  # the per-replica batch
        seen.append({tuple(row) for batch in batches for row in batch})
    assert not seen[0] & seen[1]
    assert len(seen[0] | seen[1]) == 96


def test_eval_is_one_deterministic_pass(files):
    batches = _ids(pretrain_dataset(files, 10, SEQ, PRED, is_training=False), 100)
    assert len(batches) == 9  # 96 records, drop_remainder
    assert len({tuple(row) for batch in batches for row in batch}) == 90
    again = _ids(pretrain_dataset(files, 10, SEQ, PRED, is_training=False), 100)
    np.testing.assert_array_equal(np.stack(batches), np.stack(again))


def test_check_records_accepts_matching_records(files):
    check_records(files, SEQ, PRED, VOCAB)


@pytest.mark.parametrize(
    "args, message",
    [
        (
            (32, PRED, VOCAB),
            r"input_ids has 16 values, but the model expects 32 \(--max_seq_length\)",
        ),
        ((SEQ, 5, VOCAB), r"masked_lm_positions has 4 values, but the model expects 5"),
        ((SEQ, PRED, 50), r"input_ids holds id \d+ outside the model's vocabulary \[0, 50\)"),
    ],
)
def test_check_records_names_the_file_and_the_mismatch(files, args, message):
    with pytest.raises(ValueError, match=rf"part-0.tfrecord: record 0: {message}"):
        check_records(files, *args)


def test_missing_files_and_non_records_are_reported(tmp_path):
    with pytest.raises(FileNotFoundError, match="No TFRecord file matches"):
        pretrain_dataset(str(tmp_path / "nothing-*"), 8, SEQ, PRED, True)
    text = tmp_path / "notes.txt"
    text.write_text("this is not a TFRecord file\n" * 10)
    with pytest.raises(ValueError, match="notes.txt: not a readable TFRecord file"):
        check_records(str(text), SEQ, PRED, VOCAB)


def test_find_unreadable_file_names_the_truncated_file(files, tmp_path):
    data = open(files[1], "rb").read()
    cut = _write(tmp_path / "a-good.tfrecord", _features(4, seed=9))
    broken = tmp_path / "b-cut.tfrecord"
    broken.write_bytes(data[: len(data) - 7])
    assert find_unreadable_file(cut) is None
    path, reason = find_unreadable_file([cut, str(broken)])
    assert path == str(broken) and "truncated" in reason


def test_a_directory_glob_skips_the_builders_manifests_with_a_log_line(tmp_path, caplog):
    # `--output_file=dir/x.tfrecord` writes dir/x.tfrecord.manifest.json; `--output_dir` writes
    # dir/manifest.json. `--input_file=dir/*` must read only the records.
    records = _write(tmp_path / "x.tfrecord", _features(8, seed=5))
    (tmp_path / "x.tfrecord.manifest.json").write_text("{}")
    (tmp_path / "manifest.json").write_text("{}")
    with caplog.at_level("INFO"):
        assert record_files(f"{tmp_path}/*") == [records]
    assert "x.tfrecord.manifest.json" in caplog.text and "Skipping" in caplog.text
    batch = next(iter(pretrain_dataset(f"{tmp_path}/*", 8, SEQ, PRED, is_training=False)))
    assert batch["input_ids"].shape == (8, SEQ)
    check_records(f"{tmp_path}/*", SEQ, PRED, VOCAB)
    with pytest.raises(FileNotFoundError, match="only the data builder's manifest"):
        record_files(f"{tmp_path}/*.json")
