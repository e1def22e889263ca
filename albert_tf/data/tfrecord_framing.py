"""TFRecord framing (length, masked CRC32C) for a batch of records, without TensorFlow.

A TFRecord file is a sequence of `uint64 length | uint32 masked_crc32c(length) | data |
uint32 masked_crc32c(data)`. Framing a batch here lets worker processes produce finished
file bytes without importing TensorFlow; the output is byte-identical to
`tf.io.TFRecordWriter` (tested). The CRC32C comes from `google-crc32c` (C, with the CPU's
CRC instructions where it has them), which frames the data builder's records faster than
the NumPy implementation kept as `crc32c_ragged_numpy` (the reference, and what
benchmarks/bench_tfrecord_crc.py measures it against).

Example:
    >>> frame_records([b"abc"])[0][:8]
    b'\\x03\\x00\\x00\\x00\\x00\\x00\\x00\\x00'
"""

from __future__ import annotations

import functools

import google_crc32c
import numpy as np

_CASTAGNOLI = 0x82F63B78  # CRC-32C polynomial, reflected
_MASK_DELTA = 0xA282EAD8


@functools.cache
def _crc_tables() -> np.ndarray:
    """Slicing-by-4 tables, uint32 [4, 256]."""
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_CASTAGNOLI), table >> 1)
    tables = [table.astype(np.uint32)]
    for _ in range(3):
        previous = tables[-1]
        tables.append((previous >> 8) ^ tables[0][previous & 0xFF])
    return np.stack(tables)


@functools.cache
def _zeros_state(max_length: int) -> np.ndarray:
    """uint32 [max_length + 1]: CRC register after n zero bytes from the initial 0xFFFFFFFF."""
    table = _crc_tables()[0]
    states = np.empty(max_length + 1, dtype=np.uint32)
    state = 0xFFFFFFFF
    for n in range(max_length + 1):
        states[n] = state
        state = (state >> 8) ^ int(table[state & 0xFF])
    return states


@functools.cache
def _pair_tables() -> np.ndarray:
    """uint32 [4, 65536]: the CRC contribution of bytes (2k, 2k+1) of an 8-byte step,
    indexed by the little-endian 16-bit value of the pair (slicing-by-8, two bytes a look-up).
    """
    byte_tables = _crc_tables8()
    pair = np.arange(1 << 16)
    return np.stack(
        [byte_tables[7 - 2 * k][pair & 0xFF] ^ byte_tables[6 - 2 * k][pair >> 8] for k in range(4)]
    )


@functools.cache
def _crc_tables8() -> np.ndarray:
    """Slicing-by-8 byte tables, uint32 [8, 256] (table k: a byte k + 1 places from the end)."""
    tables = [_crc_tables()[0]]
    for _ in range(7):
        previous = tables[-1]
        tables.append((previous >> 8) ^ tables[0][previous & 0xFF])
    return np.stack(tables)


def crc32c_ragged(flat: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """CRC32C of each of the byte strings concatenated in `flat` (uint8), lengths [N].

    Example:
        >>> hex(int(crc32c_ragged(np.frombuffer(b"123456789", np.uint8), np.array([9]))[0]))
        '0xe3069283'
    """
    data = flat.tobytes()  # google_crc32c takes bytes (not memoryview)
    ends = np.cumsum(lengths).tolist()
    starts = [0, *ends[:-1]]
    return np.fromiter(
        (google_crc32c.value(data[start:end]) for start, end in zip(starts, ends, strict=True)),
        dtype=np.uint32,
        count=len(ends),
    )


def crc32c_ragged_numpy(flat: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """`crc32c_ragged` in NumPy: all the strings at once, in lock step.

    The strings are right-aligned in a zero-padded matrix: from a zero register, leading
    zero bytes leave it zero, so all rows run in lock step without masks; CRC linearity then
    adds the effect of the 0xFFFFFFFF initial register over each row's own length. Each step
    eats 8 bytes; the 4 upper bytes do not depend on the register, so their part is looked
    up for all steps at once.

    Example:
        >>> hex(int(crc32c_ragged_numpy(np.frombuffer(b"123456789", np.uint8), np.array([9]))[0]))
        '0xe3069283'
    """
    tables = _pair_tables()
    num_rows = len(lengths)
    max_length = int(lengths.max(initial=0))
    width = max(8, (max_length + 7) // 8 * 8)
    matrix = np.zeros((num_rows, width), dtype=np.uint8)
    offsets = np.cumsum(lengths) - lengths
    shift = np.arange(num_rows) * width + (width - lengths) - offsets
    destination = np.repeat(shift, lengths)
    destination += np.arange(len(flat))
    matrix.reshape(-1)[destination] = flat
    pairs = matrix.view("<u2").reshape(num_rows, -1, 4)  # [N, steps, 4 pairs]
    upper = tables[2][pairs[:, :, 2]] ^ tables[3][pairs[:, :, 3]]
    upper = np.ascontiguousarray(upper.T)  # [steps, N]
    low = np.ascontiguousarray(pairs[:, :, 0].T)
    high = np.ascontiguousarray(pairs[:, :, 1].T)
    first, second = tables[0], tables[1]
    state = np.zeros(num_rows, dtype=np.uint32)
    for step in range(upper.shape[0]):
        state = (
            first[(state & 0xFFFF) ^ low[step]] ^ second[(state >> 16) ^ high[step]] ^ upper[step]
        )
    # Register after the row from 0xFFFFFFFF = from zero, xor the initial value's effect.
    initial_effect = _zeros_state(1 << max(max_length, 1).bit_length())[lengths]
    return state ^ initial_effect ^ np.uint32(0xFFFFFFFF)


def _masked(crc: np.ndarray) -> np.ndarray:
    crc = crc.astype(np.uint64)
    rotated = ((crc >> 15) | (crc << 17)) & 0xFFFFFFFF
    return ((rotated + _MASK_DELTA) & 0xFFFFFFFF).astype("<u4")


def frame_records(records: list[bytes]) -> list[bytes]:
    """Each record framed as in a TFRecord file (concatenate them to get the file)."""
    lengths = np.fromiter(map(len, records), dtype=np.int64, count=len(records))
    return frame_buffer(np.frombuffer(b"".join(records), dtype=np.uint8), lengths)


def frame_buffer(flat: np.ndarray, lengths: np.ndarray) -> list[bytes]:
    """`frame_records` for records given concatenated (uint8 `flat`) with their lengths."""
    if not len(lengths):
        return []
    offsets = np.cumsum(lengths) - lengths
    header = lengths.astype("<u8").view(np.uint8).reshape(-1, 8)
    header_crc = _masked(crc32c_ragged(header.reshape(-1), np.full(len(lengths), 8)))
    data_crc = _masked(crc32c_ragged(flat, lengths))
    # Per record: 8 length bytes, 4 crc bytes, the data, 4 crc bytes.
    framed_lengths = lengths + 16
    starts = np.cumsum(framed_lengths) - framed_lengths
    output = np.empty(int(framed_lengths.sum()), dtype=np.uint8)
    head = np.concatenate([header, header_crc.view(np.uint8).reshape(-1, 4)], axis=1)
    output[starts[:, None] + np.arange(12)] = head
    destination = np.repeat(starts + 12 - offsets, lengths)
    destination += np.arange(len(flat))
    output[destination] = flat
    output[(starts + 12 + lengths)[:, None] + np.arange(4)] = data_crc.view(np.uint8).reshape(-1, 4)
    data = output.tobytes()
    ends = np.cumsum(framed_lengths).tolist()
    return [data[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]
