"""The TFRecord schema: the original's feature spec parses our fast encoding; framing."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from albert_tf.data.records import PRETRAINING_FEATURES, serialize_examples
from albert_tf.data.tfrecord_framing import crc32c_ragged, crc32c_ragged_numpy, frame_records

SEQ, PRED = 24, 5

# The original create_pretraining_data / run_pretraining feature spec, written out.
ORIGINAL_SPEC = {
    "input_ids": tf.io.FixedLenFeature([SEQ], tf.int64),
    "input_mask": tf.io.FixedLenFeature([SEQ], tf.int64),
    "segment_ids": tf.io.FixedLenFeature([SEQ], tf.int64),
    "token_boundary": tf.io.FixedLenFeature([SEQ], tf.int64),
    "masked_lm_positions": tf.io.FixedLenFeature([PRED], tf.int64),
    "masked_lm_ids": tf.io.FixedLenFeature([PRED], tf.int64),
    "masked_lm_weights": tf.io.FixedLenFeature([PRED], tf.float32),
    "next_sentence_labels": tf.io.FixedLenFeature([1], tf.int64),
}


def _random_features(rows: int, seed: int, max_id: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "input_ids": rng.integers(0, max_id, (rows, SEQ)),
        "input_mask": rng.integers(0, 2, (rows, SEQ)),
        "segment_ids": rng.integers(0, 2, (rows, SEQ)),
        "token_boundary": rng.integers(0, 2, (rows, SEQ)),
        "masked_lm_positions": rng.integers(0, 600, (rows, PRED)),
        "masked_lm_ids": rng.integers(0, max_id, (rows, PRED)),
        "masked_lm_weights": rng.integers(0, 2, (rows, PRED)).astype(np.float32),
        "next_sentence_labels": rng.integers(0, 2, (rows, 1)),
    }


def _reference_example(features: dict[str, np.ndarray], row: int) -> tf.train.Example:
    """One row as a `tf.train.Example` built the ordinary (slow) way: the reference the fast
    `serialize_examples` is compared with."""
    feature = {}
    for name, (kind, _) in PRETRAINING_FEATURES.items():
        values = np.asarray(features[name][row]).reshape(-1)
        if kind == "int64":
            feature[name] = tf.train.Feature(int64_list=tf.train.Int64List(value=values.tolist()))
        else:
            feature[name] = tf.train.Feature(float_list=tf.train.FloatList(value=values.tolist()))
    return tf.train.Example(features=tf.train.Features(feature=feature))


def test_fast_encoding_parses_like_protos():
    for max_id in (100, 30000, 3_000_000):  # 1-, 3- and 4-byte varints
        features = _random_features(40, max_id, max_id)
        records = serialize_examples(features)
        parsed = tf.io.parse_example(records, ORIGINAL_SPEC)
        for name, values in parsed.items():
            np.testing.assert_array_equal(values.numpy(), features[name], err_msg=name)
        for row in (0, 17):
            reference = _reference_example(features, row)
            assert tf.train.Example.FromString(records[row]) == reference
            assert len(records[row]) == len(reference.SerializeToString())


def test_framing_is_byte_identical_to_tfrecord_writer(tmp_path):
    rng = np.random.default_rng(0)
    records = [rng.bytes(int(n)) for n in rng.integers(0, 300, 60)] + [b""]
    path = str(tmp_path / "r.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for record in records:
            writer.write(record)
    with open(path, "rb") as handle:
        assert handle.read() == b"".join(frame_records(records))


def test_crc32c_known_value():
    data = np.frombuffer(b"123456789", np.uint8)
    assert int(crc32c_ragged(data, np.array([9]))[0]) == 0xE3069283


def test_the_numpy_reference_crc_equals_google_crc32c():
    rng = np.random.default_rng(1)
    lengths = np.array([0, 1, 7, 8, 9, 300, 1025], np.int64)
    flat = rng.integers(0, 256, int(lengths.sum()), dtype=np.uint8)
    np.testing.assert_array_equal(crc32c_ragged(flat, lengths), crc32c_ragged_numpy(flat, lengths))
