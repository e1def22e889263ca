"""The pretraining input pipeline: TFRecord shards -> static-shape batches.

Reads records in the original ALBERT schema (ours or those of the original
`create_pretraining_data.py`), one pipeline per worker:

    files (sorted, sharded per worker, shuffled each epoch) -> repeat
    -> interleave -> shuffle serialized records -> [mix in general records]
    -> skip consumed batches
    -> batch (drop_remainder: static shapes for TPU/XLA) -> parse -> int32
    -> [dynamic masking] -> prefetch

The order is a pure function of the file list, the seed and the worker, which
is what lets training resume at the exact data position: the caller passes
`start_batch`, the number of batches this pipeline has already handed out,
and the pipeline skips that many batches' worth of *serialized* records (no
parsing), see `albert_tf.training.pretrain`.

With `dynamic_masking=True` the whole-word n-gram masks are drawn again each
time a record is read (`albert_tf.inputs.dynamic_masking`), keyed by the seed and
the record's index in the stream (counted before the resume skip): a record
gets new masks every epoch, and a resumed run sees the masks of the
interrupted one.

Illustration (not run):
    dataset = pretrain_dataset(
        "out/train-*.tfrecord", global_batch_size=8, max_seq_length=128,
        max_predictions_per_seq=20, is_training=True)
    batch = next(iter(dataset))
    batch["input_ids"].shape, batch["input_ids"].dtype
    (TensorShape([8, 128]), tf.int32)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

from albert_tf.data.masking import MaskingOptions
from albert_tf.data.records import PRETRAINING_FEATURES
from albert_tf.errors import UserError
from albert_tf.file_patterns import expand_file_patterns, without_build_manifests
from albert_tf.inputs.dynamic_masking import MaskFn, dynamic_mask_fn

# The features the model and the losses need; `token_boundary` is only read
# when it is needed (it is absent from some third-party records).
MODEL_FEATURES = (
    "input_ids",
    "input_mask",
    "segment_ids",
    "masked_lm_positions",
    "masked_lm_ids",
    "masked_lm_weights",
    "next_sentence_labels",
)
_NO_RECORD_MESSAGE = (
    "No TFRecord file matches {pattern!r} (cwd {cwd}); check the path (write the records with "
    "albert-tf data)."
)


def pretraining_feature_spec(
    max_seq_length: int, max_predictions_per_seq: int
) -> dict[str, tf.io.FixedLenFeature]:
    """The `tf.io.parse_example` spec of the whole schema (`albert_tf.data.records`).

    Example:
        >>> pretraining_feature_spec(128, 20)["masked_lm_weights"]
        FixedLenFeature(shape=[20], dtype=tf.float32, default_value=None)
    """
    widths = {"seq": max_seq_length, "pred": max_predictions_per_seq}
    return {
        name: tf.io.FixedLenFeature(
            [widths.get(width, width)], tf.int64 if kind == "int64" else tf.float32
        )
        for name, (kind, width) in PRETRAINING_FEATURES.items()
    }


def feature_spec(
    max_seq_length: int, max_predictions_per_seq: int, with_token_boundary: bool = False
) -> dict[str, Any]:
    """The `tf.io.parse_example` spec of the schema, restricted to `MODEL_FEATURES`
    (and `token_boundary` when asked: dynamic masking reads it)."""
    spec = pretraining_feature_spec(max_seq_length, max_predictions_per_seq)
    names = MODEL_FEATURES + (("token_boundary",) if with_token_boundary else ())
    return {name: spec[name] for name in names}


def record_files(file_patterns: str | Sequence[str]) -> list[str]:
    """Sorted files matching comma-separated glob patterns (the original flag format).

    Sorted over all patterns and without repeats, so the data order depends only on the files
    (`tf.io.gfile.glob`: also `gs://` paths). Raises a `FileNotFoundError` naming the pattern
    that matched nothing. The data builder's manifests (`dir/*` matches them) are skipped with
    a log line.
    """
    files = expand_file_patterns(
        file_patterns, glob_fn=tf.io.gfile.glob, no_match_message=_NO_RECORD_MESSAGE
    )
    records = without_build_manifests(sorted(set(files)))
    if not records:
        raise FileNotFoundError(
            f"{file_patterns!r} matches only the data builder's manifest files; point it at "
            "the .tfrecord files."
        )
    return records


def pretrain_dataset(
    file_patterns: str | Sequence[str],
    global_batch_size: int,
    max_seq_length: int,
    max_predictions_per_seq: int,
    is_training: bool,
    input_context: tf.distribute.InputContext | None = None,
    seed: int = 12345,
    start_batch: int = 0,
    shuffle_buffer_size: int = 10_000,
    cycle_length: int = 8,
    dynamic_masking: bool = False,
    vocab_size: int | None = None,
    masking_options: MaskingOptions | None = None,
    general_file_patterns: str | Sequence[str] | None = None,
    general_ratio: float = 0.0,
) -> tf.data.Dataset:
    """Batches of pretraining features for one input pipeline (one worker).

    Args:
      file_patterns: glob patterns (a list, or comma-separated) of TFRecord files.
      global_batch_size: examples per step over all replicas; each replica gets
        `input_context.get_per_replica_batch_size(global_batch_size)`.
      max_seq_length: length the records were written with.
      max_predictions_per_seq: masked positions per record.
      is_training: shuffle and repeat forever; otherwise one deterministic pass.
      input_context: from `strategy.distribute_datasets_from_function`; selects
        this worker's files. `None` means a single pipeline and replica.
      seed: seeds the file and record shuffles (the order is deterministic).
      start_batch: training only: batches of this pipeline already consumed,
        skipped without parsing (resuming at the checkpointed data position).
      shuffle_buffer_size: records in the shuffle buffer.
      cycle_length: files read in parallel.
      dynamic_masking: re-draw the masks each time a record is read (needs
        `token_boundary` in the records and `vocab_size`).
      vocab_size: the model's vocabulary (random replacements stay below it).
      masking_options: masked_lm_prob, ngram, ... of the re-drawn masks;
        default `MaskingOptions(max_predictions_per_seq=...)` (the original's
        flag defaults). Its `max_predictions_per_seq` must match.
      general_file_patterns: training only: records of general-domain text, mixed in at
        `general_ratio` (continued pretraining on a domain; see `mix_choices`), before the
        resume skip and the masks.
      general_ratio: the share of records taken from `general_file_patterns`.

    Returns:
      A dataset of dicts of `MODEL_FEATURES`: int32 tensors (float32 weights)
      of static shape `[per_replica_batch, ...]`; `next_sentence_labels` is
      `[per_replica_batch]`.
    """
    files = record_files(file_patterns)
    num_pipelines = input_context.num_input_pipelines if input_context else 1
    pipeline_id = input_context.input_pipeline_id if input_context else 0
    batch_size = (
        input_context.get_per_replica_batch_size(global_batch_size)
        if input_context
        else global_batch_size
    )
    spec = feature_spec(max_seq_length, max_predictions_per_seq, dynamic_masking)
    mask = (
        _dynamic_mask(max_predictions_per_seq, vocab_size, masking_options, seed, pipeline_id)
        if dynamic_masking
        else None
    )

    read = dict(
        is_training=is_training,
        num_pipelines=num_pipelines,
        pipeline_id=pipeline_id,
        seed=seed,
        shuffle_buffer_size=shuffle_buffer_size,
        cycle_length=cycle_length,
    )
    dataset = _records(files, **read)
    if general_file_patterns:
        if not is_training:
            raise ValueError("pretrain_dataset: general records are mixed into training only.")
        general = _records(record_files(general_file_patterns), **dict(read, seed=seed + 1))
        dataset = tf.data.Dataset.choose_from_datasets(
            [dataset, general], mix_choices(general_ratio)
        )
    if mask is not None:
        # Before the skip: a record's masks depend on its place in the whole stream.
        dataset = dataset.enumerate()
    if is_training and start_batch:
        dataset = dataset.skip(start_batch * batch_size)
    dataset = dataset.batch(batch_size, drop_remainder=True)

    def parse(records: tf.Tensor) -> dict[str, tf.Tensor]:
        return _parse_batch(records, spec)

    def parse_and_mask(indices: tf.Tensor, records: tf.Tensor) -> dict[str, tf.Tensor]:
        # One key per batch (its first record's index): one set of random draws for it.
        return mask(indices[0], parse(records))

    dataset = dataset.map(
        parse if mask is None else parse_and_mask,
        num_parallel_calls=tf.data.AUTOTUNE,
        deterministic=True,
    )
    return dataset.prefetch(tf.data.AUTOTUNE)


def _records(
    files: list[str],
    is_training: bool,
    num_pipelines: int,
    pipeline_id: int,
    seed: int,
    shuffle_buffer_size: int,
    cycle_length: int,
) -> tf.data.Dataset:
    """This pipeline's serialized records of `files`: sharded, and when training shuffled and
    repeated."""
    dataset = tf.data.Dataset.from_tensor_slices(files)
    # Whole files per worker when there are enough, records otherwise (below).
    shard_files = num_pipelines > 1 and len(files) >= num_pipelines
    if shard_files:
        dataset = dataset.shard(num_pipelines, pipeline_id)
    if is_training:
        dataset = dataset.shuffle(len(files), seed=seed, reshuffle_each_iteration=True).repeat()
    dataset = dataset.interleave(
        tf.data.TFRecordDataset,
        cycle_length=min(cycle_length, len(files)),
        num_parallel_calls=tf.data.AUTOTUNE,
        deterministic=True,
    )
    if num_pipelines > 1 and not shard_files:
        logging.warning(
            "%d files for %d input pipelines: sharding by record (every worker reads every "
            "file); write at least one file per worker to avoid it.",
            len(files),
            num_pipelines,
        )
        dataset = dataset.shard(num_pipelines, pipeline_id)
    if is_training:
        dataset = dataset.shuffle(shuffle_buffer_size, seed=seed, reshuffle_each_iteration=True)
    return dataset


def mix_choices(ratio: float) -> tf.data.Dataset:
    """0/1 forever, 1 (a general record) for a share `ratio` spread evenly: record i is general
    when floor((i + 1) * ratio) > floor(i * ratio), so every batch holds floor or ceil of
    `ratio * batch` of them, and the order is a function of the position (resumable)."""

    def choice(index: tf.Tensor) -> tf.Tensor:
        position = tf.cast(index, tf.float64)
        return tf.cast(tf.floor((position + 1.0) * ratio) - tf.floor(position * ratio), tf.int64)

    return tf.data.Dataset.counter().map(choice)


def _dynamic_mask(
    max_predictions_per_seq: int,
    vocab_size: int | None,
    options: MaskingOptions | None,
    seed: int,
    pipeline_id: int,
) -> MaskFn:
    """The masking function of `pretrain_dataset(dynamic_masking=True)`, checked."""
    if vocab_size is None:
        raise ValueError("pretrain_dataset: dynamic_masking needs vocab_size (the model's).")
    options = options or MaskingOptions(max_predictions_per_seq=max_predictions_per_seq)
    if options.max_predictions_per_seq != max_predictions_per_seq:
        raise UserError(
            f"pretrain_dataset: masking_options.max_predictions_per_seq "
            f"({options.max_predictions_per_seq}) != max_predictions_per_seq "
            f"({max_predictions_per_seq})."
        )
    return dynamic_mask_fn(options, vocab_size, seed=(seed, pipeline_id))


def _parse_batch(
    records: tf.Tensor, spec: dict[str, tf.io.FixedLenFeature]
) -> dict[str, tf.Tensor]:
    """Parses serialized examples; int64 -> int32 (TPUs have no int64 compute)."""
    features = tf.io.parse_example(records, spec)
    parsed = {
        name: tf.cast(value, tf.int32) if value.dtype == tf.int64 else value
        for name, value in features.items()
    }
    parsed["next_sentence_labels"] = tf.reshape(parsed["next_sentence_labels"], [-1])
    return parsed


def check_records(
    file_patterns: str | Sequence[str],
    max_seq_length: int,
    max_predictions_per_seq: int,
    vocab_size: int,
    num_records: int = 16,
    require_token_boundary: bool = False,
) -> None:
    """Checks that the first records of the first file fit the model; raises `ValueError`.

    Catches the usual mistakes before any graph is built: records written with
    another `max_seq_length` or `max_predictions_per_seq`, a vocabulary larger
    than the model's, or a file that is not a TFRecord of `tf.train.Example`.
    `require_token_boundary`: also needs `token_boundary` (dynamic masking).
    """
    path = record_files(file_patterns)[0]
    try:
        records = list(tf.data.TFRecordDataset(path).take(num_records).as_numpy_iterator())
    except tf.errors.DataLossError as e:
        raise UserError(
            f"{path}: not a readable TFRecord file ({e.message.strip()}); regenerate it."
        ) from e
    if not records:
        raise UserError(f"{path}: holds no records.")
    spec = feature_spec(max_seq_length, 1, with_token_boundary=require_token_boundary)
    expected = {name: s.shape[0] for name, s in spec.items()}
    expected.update(
        masked_lm_positions=max_predictions_per_seq,
        masked_lm_ids=max_predictions_per_seq,
        masked_lm_weights=max_predictions_per_seq,
    )
    flags = {
        max_seq_length: "--max_seq_length",
        max_predictions_per_seq: "--max_predictions_per_seq",
    }
    for index, record in enumerate(records):
        where = f"{path}: record {index}"
        try:
            example = tf.train.Example.FromString(record)
        except Exception as e:  # protobuf's DecodeError is not importable portably
            raise UserError(f"{where}: not a tf.train.Example ({e}).") from e
        values = {}
        for name, length in expected.items():
            feature = example.features.feature.get(name)
            if feature is None:
                raise UserError(
                    f"{where}: has no feature {name!r}; the pretraining schema needs "
                    f"{list(expected)}."
                )
            kind = feature.WhichOneof("kind")
            value = np.asarray(getattr(feature, kind).value)
            if len(value) != length:
                raise UserError(
                    f"{where}: {name} has {len(value)} values, but the model expects {length} "
                    f"({flags.get(length, 'schema')}); pass the value the records were written "
                    "with, or regenerate them."
                )
            values[name] = value
        for name in ("input_ids", "masked_lm_ids"):
            if values[name].max(initial=0) >= vocab_size or values[name].min(initial=0) < 0:
                raise UserError(
                    f"{where}: {name} holds id {int(values[name].max())} outside the model's "
                    f"vocabulary [0, {vocab_size}); the records were made with another "
                    "vocabulary: use its albert_config.json (vocab_size) or regenerate them."
                )
        if values["masked_lm_positions"].max(initial=0) >= max_seq_length:
            raise UserError(f"{where}: a masked_lm_position is >= max_seq_length.")
        if not set(values["next_sentence_labels"].tolist()) <= {0, 1}:
            raise UserError(f"{where}: next_sentence_labels must be 0 or 1.")


def find_unreadable_file(file_patterns: str | Sequence[str]) -> tuple[str, str] | None:
    """The first file that cannot be read to its end, with TF's reason, or None.

    TensorFlow's `DataLossError` ("truncated record at 1044") does not name the
    file; the training loop calls this on that error to name it.
    """
    for path in record_files(file_patterns):
        try:
            for _ in tf.data.TFRecordDataset(path).batch(4096):
                pass
        except tf.errors.DataLossError as e:
            return path, e.message.strip()
    return None
