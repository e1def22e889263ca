"""The original ALBERT pretraining TFRecord schema: its features, fast encoding, writing.

Each record is a `tf.train.Example` with, zero padded:

    input_ids, input_mask, segment_ids, token_boundary   int64[max_seq_length]
    masked_lm_positions, masked_lm_ids                   int64[max_predictions_per_seq]
    masked_lm_weights                                    float[max_predictions_per_seq]
    next_sentence_labels                                 int64[1]

Building `tf.train.Example` protos one by one in Python costs tens of microseconds each;
`serialize_examples` encodes a whole batch into the identical protobuf wire format with
NumPy (packed varints, fixed32 floats), which `tf.io.parse_example` reads unchanged. No
TensorFlow here: the builder's workers encode without it. Reading the records back is the
input pipeline's (`albert_tf.inputs.pretrain_input.pretraining_feature_spec`).

Illustration (not run):
    records = serialize_examples({"input_ids": np.zeros((2, 8), np.int64), ...})
    tf.io.parse_single_example(records[0], pretraining_feature_spec(8, 2))
"""

from __future__ import annotations

import contextlib
import os
from typing import BinaryIO

import numpy as np

# Feature name -> (kind, width key). Width key: "seq" = max_seq_length, "pred" =
# max_predictions_per_seq, or a fixed int.
PRETRAINING_FEATURES = {
    "input_ids": ("int64", "seq"),
    "input_mask": ("int64", "seq"),
    "segment_ids": ("int64", "seq"),
    "token_boundary": ("int64", "seq"),
    "masked_lm_positions": ("int64", "pred"),
    "masked_lm_ids": ("int64", "pred"),
    "masked_lm_weights": ("float", "pred"),
    "next_sentence_labels": ("int64", 1),
}


def _varint_bytes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Varints of a [N, K] array of values in [0, 2**35): (uint8 stream in row-major
    order, bytes per row [N])."""
    values = np.asarray(values).reshape(len(values), -1)
    top = int(values.max(initial=0))
    if values.size and (values.min() < 0 or top >= 1 << 35):
        raise ValueError("serialize_examples: int features must be in [0, 2**35).")
    if top < 0x80:  # one byte per value: the varint is the value itself
        return values.astype(np.uint8).reshape(-1), np.full(len(values), values.shape[1])
    values = values.astype(np.int64)
    width = (top.bit_length() + 6) // 7
    sizes = np.ones(values.shape, dtype=np.int64)
    for k in range(1, width):
        sizes += values >= (1 << (7 * k))
    index = np.arange(width)
    groups = (values[..., None] >> (7 * index)) & 0x7F
    groups |= (index < sizes[..., None] - 1) * 0x80
    return groups.astype(np.uint8)[index < sizes[..., None]], sizes.sum(axis=1)


class _RowBytes:
    """Per-row byte strings built from segments, kept dense ([N, w] matrix) while every row
    has the same layout; only ragged parts (varints of varying size) are scattered."""

    def __init__(self, num_rows: int):
        self.num_rows = num_rows
        self.parts: list[tuple[np.ndarray, np.ndarray]] = []  # (stream, bytes per row)
        self._dense: list[np.ndarray] = []

    def add_dense(self, matrix: np.ndarray) -> None:
        self._dense.append(matrix.reshape(self.num_rows, -1).astype(np.uint8, copy=False))

    def add_constant(self, data: bytes) -> None:
        row = np.frombuffer(data, dtype=np.uint8)
        self._dense.append(np.broadcast_to(row, (self.num_rows, len(row))))

    def add_stream(self, stream: np.ndarray, lengths: np.ndarray) -> None:
        if len(lengths) and (lengths == lengths[0]).all():
            self.add_dense(stream)
            return
        self._flush()
        self.parts.append((stream, np.asarray(lengths, dtype=np.int64)))

    def add_varint(self, values: np.ndarray) -> None:
        self.add_stream(*_varint_bytes(np.asarray(values).reshape(-1, 1)))

    def _flush(self) -> None:
        if self._dense:
            matrix = np.concatenate(self._dense, axis=1)
            self.parts.append(
                (matrix.reshape(-1), np.full(self.num_rows, matrix.shape[1], dtype=np.int64))
            )
            self._dense = []

    def byte_lengths(self) -> np.ndarray:
        dense = sum(matrix.shape[1] for matrix in self._dense)
        return dense + sum((length for _, length in self.parts), np.zeros(self.num_rows, np.int64))

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        """Returns (all rows joined, uint8; bytes per row)."""
        self._flush()
        if len(self.parts) == 1:
            return self.parts[0]
        lengths = np.stack([length for _, length in self.parts], axis=1)
        row_lengths = lengths.sum(axis=1)
        offsets = np.cumsum(row_lengths) - row_lengths
        part_offsets = offsets[:, None] + np.cumsum(lengths, axis=1) - lengths
        output = np.empty(int(row_lengths.sum()), dtype=np.uint8)
        for index, (stream, length) in enumerate(self.parts):
            source_offsets = np.cumsum(length) - length
            shift = np.repeat(part_offsets[:, index] - source_offsets, length)
            output[np.arange(len(stream)) + shift] = stream
        return output, row_lengths


def _feature_entry(name: str, kind: str, values: np.ndarray) -> _RowBytes:
    """One `Features.feature` map entry per row: key and Int64List/FloatList value."""
    num_rows = len(values)
    if kind == "int64":
        payload, payload_length = _varint_bytes(values)  # Int64List.value, packed
        list_field = b"\x1a"  # Feature.int64_list = 3
    else:
        data = np.ascontiguousarray(values, dtype="<f4").reshape(num_rows, -1)
        payload, payload_length = (
            data.view(np.uint8).reshape(-1),
            np.full(num_rows, data.size // max(num_rows, 1) * 4),
        )
        list_field = b"\x12"  # Feature.float_list = 2
    payload_prefix_size = _varint_bytes(payload_length.reshape(-1, 1))[1]
    list_length = 1 + payload_prefix_size + payload_length
    feature_length = 1 + _varint_bytes(list_length.reshape(-1, 1))[1] + list_length
    key = name.encode()
    key_part = b"\x0a" + bytes([len(key)]) + key + b"\x12"  # entry.key, then entry.value tag
    entry_length = len(key_part) + _varint_bytes(feature_length.reshape(-1, 1))[1]
    entry_length = entry_length + feature_length
    entry = _RowBytes(num_rows)
    entry.add_constant(b"\x0a")  # Features.feature (map entry), field 1
    entry.add_varint(entry_length)
    entry.add_constant(key_part)
    entry.add_varint(feature_length)
    entry.add_constant(list_field)
    entry.add_varint(list_length)
    entry.add_constant(b"\x0a")  # Int64List/FloatList.value, field 1, packed
    entry.add_varint(payload_length)
    entry.add_stream(payload, payload_length)
    return entry


def serialize_examples_buffer(features: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """`serialize_examples` as one uint8 buffer of all records and their byte lengths."""
    num_rows = len(features["input_ids"])
    entries = [
        _feature_entry(name, kind, np.asarray(features[name]).reshape(num_rows, -1))
        for name, (kind, _) in PRETRAINING_FEATURES.items()
    ]
    example = _RowBytes(num_rows)
    example.add_constant(b"\x0a")  # Example.features, field 1
    example.add_varint(sum(entry.byte_lengths() for entry in entries))
    for entry in entries:
        entry._flush()
        for stream, length in entry.parts:
            example.add_stream(stream, length)
    buffer, row_lengths = example.finish()
    return buffer, row_lengths


def serialize_examples(features: dict[str, np.ndarray]) -> list[bytes]:
    """Serialized `tf.train.Example`s of a batch of pretraining features ([N, K] arrays).

    Int features must be in [0, 2**35) (ids, masks, positions, labels); the float feature
    is little-endian float32, as protobuf stores it. `tf.io.parse_example` reads the result
    exactly like the same `tf.train.Example`s built with TensorFlow's protos (tested).
    """
    if len(features["input_ids"]) == 0:
        return []
    buffer, row_lengths = serialize_examples_buffer(features)
    data = buffer.tobytes()
    ends = np.cumsum(row_lengths).tolist()
    return [data[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]


class RecordShardWriter:
    """Writes framed TFRecords (see `tfrecord_framing`) to local shards under temporary names;
    `commit` renames them to their final names, `abort` deletes them.

    Illustration (not run):
        writer = RecordShardWriter(["/tmp/out/part-0.tfrecord"])
        writer.write(0, frame_records([record])[0]); writer.commit()
    """

    def __init__(self, paths: list[str], temp_suffix: str = ".incomplete"):
        self.paths = list(paths)
        self.temp_paths = [path + temp_suffix for path in self.paths]
        self.counts = [0] * len(self.paths)
        self.bytes_written = 0
        self._files = [_open_for_writing(path) for path in self.temp_paths]

    def write(self, shard: int, framed_record: bytes) -> None:
        self._files[shard].write(framed_record)
        self.counts[shard] += 1
        self.bytes_written += len(framed_record)

    def bytes_needed(self) -> int:
        """What the shards held when a write failed: the least the whole output needs."""
        return self.bytes_written

    def close(self) -> None:
        """Flushes and closes every shard (still under its temporary name)."""
        for handle in self._files:
            handle.close()

    def commit(self) -> None:
        """Closes every shard and gives it its final name."""
        self.close()
        for temp_path, path in zip(self.temp_paths, self.paths, strict=True):
            os.replace(temp_path, path)

    def abort(self) -> None:
        """Closes and deletes every temporary shard."""
        for handle in self._files:
            with contextlib.suppress(OSError):  # E.g. a full disk fails the final flush.
                handle.close()
        for temp_path in self.temp_paths:
            if os.path.exists(temp_path):
                os.remove(temp_path)


def _open_for_writing(path: str) -> BinaryIO:
    return open(path, "wb", buffering=1 << 20)
