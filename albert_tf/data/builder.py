"""The pretraining-data builder: documents -> SOP/NSP instances -> masked TFRecord shards.

Streaming, with bounded memory: documents are read lazily and grouped into batches of
about `batch_characters` characters; each batch is tokenized (SentencePiece's C++ batch
encoder), cut into instances, masked and serialized with vectorized NumPy, and framed as
TFRecords, all inside a worker process when `parallelism > 1` (no more workers than batches:
one batch is processed in the main process). At most `2 * parallelism` batches are in
flight. The main process only shuffles and writes: every record goes to a
random shard, and each shard has a bounded shuffle buffer (`shuffle_buffer_size` records
in total), so no list of the whole corpus's instances ever exists.

Deterministic: every random draw of a batch comes from a generator seeded by
(random_seed, dupe pass, batch key), where the batch key is (index of the input file, index
of the batch in that file): batches never span two files and are formed from the input
alone, so the output is byte-identical across runs and across `parallelism` settings, and
the Beam pipeline (`beam_builder`), which runs the same `process_document_batch` on the same
batches, writes the same multiset of records.

Optional exact deduplication (`dedup_documents`, `dedup_lines`; see `deduplication`)
happens before batching; its counts go into the manifest's statistics.

Held-out documents (`eval_documents`, see `held_out`): a build of part "train" leaves out the
last `eval_documents` documents of the input, one of part "eval" (`held_out_options`) holds
only those, each once and in one shard. The documents are selected as read, before
deduplication (which then works within each part).

Safe: shards are written as `*.incomplete` and renamed at the end; the JSON manifest
(flags, tokenizer sha256, counts, statistics) is written last; an existing output is
refused unless `overwrite`; on any error the temporary files are deleted.

Why not tf.data: instance building and masking are sequential random processes per
document that need NumPy; inside tf.data they would run as `py_function`, under one GIL,
i.e. on one core. Worker processes use every core, and the framing in NumPy
(`tfrecord_framing`) keeps TensorFlow out of the workers (no 3 s import per process).

Illustration (not run):
    options = BuilderOptions(input_file="data/sample.txt", output_dir="/tmp/pretrain",
                             spm_model_file="/tmp/spm.model", max_seq_length=128)
    manifest = build_pretraining_data(options)
    manifest["statistics"]["instances"] > 0
    True
"""

from __future__ import annotations

import collections
import dataclasses
import glob
import itertools
import json
import logging
import multiprocessing
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from albert_tf.atomic_files import atomic_output_directory
from albert_tf.config_fields import check_choices, check_range, fields_from, option
from albert_tf.data.deduplication import Deduplicator
from albert_tf.data.documents import (
    DECODE_ERROR_MODES,
    INPUT_FORMATS,
    Document,
    InputError,
    Opener,
    read_file_documents,
)
from albert_tf.data.held_out import PARTS, check_held_out, held_out_part
from albert_tf.data.instances import InstanceOptions, assemble_instances, build_segment_pairs
from albert_tf.data.masking import MaskingOptions, mask_instances
from albert_tf.data.parallelism import available_cores
from albert_tf.data.records import RecordShardWriter, serialize_examples_buffer
from albert_tf.data.sentence_encoder import SentenceEncoder
from albert_tf.data.tfrecord_framing import frame_buffer
from albert_tf.data.tokenized_documents import TokenizedDocuments, tokenize_documents
from albert_tf.data.word_segmenters import (
    NO_SEGMENTER,
    WORD_SEGMENTER_HELP,
    check_word_segmenter,
    load_word_segmenter,
)
from albert_tf.data.word_units import UNIT_RULE
from albert_tf.disk_space import explain_disk_full
from albert_tf.errors import ExistingOutputError, UserError
from albert_tf.file_names import MANIFEST_FILE, MANIFEST_SUFFIX
from albert_tf.file_patterns import expand_file_patterns
from albert_tf.output_lock import output_lock

MANIFEST_NAME = MANIFEST_FILE


@dataclasses.dataclass(frozen=True)
class BuilderOptions:
    """Every setting of a build (original flag names), recorded in the manifest.

    Exactly one of `output_dir` (shards `part-XXXXX-of-YYYYY.tfrecord` + manifest.json)
    and `output_file` (comma-separated shard paths, as in the original) is set.
    """

    input_file: str = option(dataclasses.MISSING, "Input text files: comma-separated globs.")
    spm_model_file: str = option(dataclasses.MISSING, "SentencePiece model (ALBERT id layout).")
    output_dir: str | None = option(None, "Output directory (shards + manifest.json).")
    output_file: str | None = option(
        None, "Output TFRecord files, comma-separated (one per shard)."
    )
    do_lower_case: bool = option(True, "Lowercase the input (must match the model).")
    max_seq_length: int = option(512, "Maximum sequence length.")
    max_predictions_per_seq: int = option(20, "Maximum masked LM predictions per sequence.")
    masked_lm_prob: float = option(0.15, "Masked LM probability.")
    short_seq_prob: float = option(0.1, "Probability of a shorter target length.")
    ngram: int = option(3, "Maximum n-gram length (in words) to mask.")
    favor_shorter_ngram: bool = option(True, "p(n) proportional to 1/n.")
    do_whole_word_mask: bool = option(True, "Mask whole words.")
    word_segmenter: str = option(NO_SEGMENTER, WORD_SEGMENTER_HELP)
    random_next_sentence: bool = option(False, "NSP (random B) instead of SOP.")
    sop_random_document_fallback: bool = option(
        False, "Original quirk: a one-sentence chunk takes B from a random document (label 1)."
    )
    dupe_factor: int = option(40, "Passes over the input, with different masks.")
    random_seed: int = option(12345, "Seed of every random draw.")
    num_output_shards: int = option(1, "Shards under --output_dir.")
    parallelism: int = option(
        1,
        "Worker processes; default: the cores this process may use. The output is the same "
        "for every value.",
        flag_default=available_cores(),
    )
    overwrite: bool = option(False, "Replace an existing output.")
    input_format: str = option("text", "Input format.", choices=INPUT_FORMATS)
    on_decode_error: str = option("strict", "Invalid UTF-8 handling.", choices=DECODE_ERROR_MODES)
    batch_characters: int = option(
        1_000_000, "Characters per batch of documents (the seeds depend on it)."
    )
    # Memory is flat once the buffer is full (about 10 MB at length 128, 50 MB at 512).
    shuffle_buffer_size: int = option(
        10_000, "Records held for shuffling before writing (all shards); training shuffles again."
    )
    dedup_documents: bool = option(False, "Drop exact duplicate documents (first kept).")
    dedup_lines: bool = option(False, "Drop lines seen earlier in the corpus (first kept).")
    eval_documents: int = option(
        0,
        "Hold out the last N documents of the input (files in --input_file order) for "
        "evaluation records, built once (dupe factor 1) in one shard under --eval_output_dir; "
        "0: none.",
    )
    part: str = option(
        "train",
        "With eval_documents: train = all but the held-out documents, eval = only those.",
        choices=PARTS,
    )

    def __post_init__(self):
        if (self.output_dir is None) == (self.output_file is None):
            raise ValueError("Set exactly one of output_dir and output_file.")
        for name in ("dupe_factor", "num_output_shards", "parallelism"):
            check_range(name, getattr(self, name), low=1)
        check_range("eval_documents", self.eval_documents, low=0)
        check_choices(self)
        self.instance_options()  # validates
        self.masking_options()

    def instance_options(self) -> InstanceOptions:
        return fields_from(InstanceOptions, self)

    def masking_options(self) -> MaskingOptions:
        return fields_from(MaskingOptions, self)

    def shard_paths(self) -> list[str]:
        if self.output_file is not None:
            return [path.strip() for path in self.output_file.split(",") if path.strip()]
        count = self.num_output_shards
        return [
            os.path.join(self.output_dir, f"part-{index:05d}-of-{count:05d}.tfrecord")
            for index in range(count)
        ]

    def manifest_path(self) -> str:
        if self.output_dir is not None:
            return os.path.join(self.output_dir, MANIFEST_NAME)
        return self.shard_paths()[0] + MANIFEST_SUFFIX


def prediction_budget_warning(
    max_seq_length: int, max_predictions_per_seq: int, masked_lm_prob: float
) -> str | None:
    """A warning when the cap makes full-length sequences mask less than `masked_lm_prob`.

    Example:
        >>> prediction_budget_warning(512, 20, 0.15)[:40]
        'max_predictions_per_seq=20 caps masking '
    """
    wanted = max(1, round(max_seq_length * masked_lm_prob))
    if max_predictions_per_seq >= wanted:
        return None
    return (
        f"max_predictions_per_seq={max_predictions_per_seq} caps masking at "
        f"{max_predictions_per_seq / max_seq_length:.1%} of a full {max_seq_length}-piece "
        f"sequence instead of masked_lm_prob={masked_lm_prob:.0%} ({wanted} pieces); raise "
        f"it to {wanted} to mask {masked_lm_prob:.0%}."
    )


class BuildStatistics:
    """Counts summed over batches; `as_dict` goes into the manifest."""

    def __init__(self, ngram: int):
        self.counts: collections.Counter = collections.Counter()
        self.ngram_counts = np.zeros(ngram + 1, dtype=np.int64)
        self.replacement_counts = np.zeros(3, dtype=np.int64)

    def add(self, batch_statistics: dict) -> None:
        for key, value in batch_statistics.items():
            if key == "ngram_counts":
                self.ngram_counts += value
            elif key == "replacement_counts":
                self.replacement_counts += value
            else:
                self.counts[key] += int(value)

    def merge(self, other: BuildStatistics) -> None:
        self.counts.update(other.counts)
        self.ngram_counts += other.ngram_counts
        self.replacement_counts += other.replacement_counts

    def as_dict(self) -> dict:
        counts = dict(self.counts)
        instances = max(counts.get("instances", 0), 1)
        masked = max(int(self.replacement_counts.sum()), 1)
        ngrams = max(int(self.ngram_counts[1:].sum()), 1)
        return {
            **counts,
            "share_full_length": counts.get("full_length", 0) / instances,
            "masked_share_of_real_tokens": masked / max(counts.get("real_tokens", 0), 1),
            "replacement_mask_kept_random": (self.replacement_counts / masked).tolist(),
            "masked_ngram_words_share": {
                str(n): float(self.ngram_counts[n] / ngrams)
                for n in range(1, len(self.ngram_counts))
            },
            "label_1_share": counts.get("label_1", 0) / instances,
            **unit_statistics(counts),
        }


def unit_statistics(counts: dict) -> dict:
    """Whole-word unit figures of the build's counts (see `word_units`)."""
    masked_units = counts.get("masked_units", 0)
    unspaced_units = counts.get("masked_units_unspaced", 0)
    words = counts.get("segmenter_words", 0)
    return {
        "mean_characters_per_masked_unit": counts.get("masked_unit_characters", 0)
        / max(masked_units, 1),
        "whole_word_share_of_masked_units": (
            counts.get("masked_units_whole_word", 0) / unspaced_units if unspaced_units else None
        ),
        "mean_characters_per_word": (
            counts.get("segmenter_word_characters", 0) / words if words else None
        ),
    }


# (index of the input file, index of the batch within the file): names a batch stably.
BatchKey = tuple[int, int]


def _batch_seed(random_seed: int, dupe: int, batch_key: BatchKey) -> np.random.SeedSequence:
    return np.random.SeedSequence([random_seed, dupe, *batch_key])


def process_document_batch(
    encoder: SentenceEncoder,
    options: BuilderOptions,
    documents: list[Document],
    dupe: int,
    batch_key: BatchKey,
) -> tuple[list[bytes], np.ndarray, dict]:
    """One batch of documents -> (framed TFRecords in random order, their shards, counts).

    The one implementation of tokenize, pair, mask and serialize, for both builders.
    """
    seed = _batch_seed(options.random_seed, dupe, batch_key)
    python_seed, numpy_seed = seed.spawn(2)
    rng = random.Random(int(python_seed.generate_state(1)[0]))
    np_rng = np.random.default_rng(numpy_seed)
    instance_options = options.instance_options()
    segmenter = load_word_segmenter(options.word_segmenter)
    batch = tokenize_documents(encoder, documents, instance_options.max_num_tokens, segmenter)
    statistics = {"documents": batch.num_documents, "split_sentences": batch.split_sentences}
    if batch.num_documents == 0:
        return [], np.zeros(0, dtype=np.int64), statistics
    pairs = build_segment_pairs(batch, instance_options, rng, np_rng)
    statistics["skipped_chunks"] = pairs.skipped_chunks
    if len(pairs) == 0:
        return [], np.zeros(0, dtype=np.int64), statistics
    features = assemble_instances(
        batch.token_ids,
        pairs,
        options.max_seq_length,
        encoder.cls_id,
        encoder.sep_id,
        batch.token_starts,
    )
    source = features.pop("source")
    masked = mask_instances(
        features,
        options.masking_options(),
        encoder.cls_id,
        encoder.sep_id,
        encoder.mask_id,
        encoder.normal_piece_ids,
        np_rng,
    )
    real_tokens = features["input_mask"].sum(axis=1)
    features.update(
        input_ids=masked.input_ids,
        masked_lm_positions=masked.positions,
        masked_lm_ids=masked.label_ids,
        masked_lm_weights=masked.weights,
        next_sentence_labels=pairs.labels[:, None],
    )
    order = np_rng.permutation(len(pairs))
    records = frame_buffer(*serialize_examples_buffer({k: v[order] for k, v in features.items()}))
    shards = np_rng.integers(0, options.num_output_shards, size=len(records))
    statistics.update(
        instances=len(pairs),
        real_tokens=int(real_tokens.sum()),
        full_length=int((real_tokens == options.max_seq_length).sum()),
        label_1=int(pairs.labels.sum()),
        ngram_counts=masked.ngram_counts,
        replacement_counts=masked.replacement_counts,
        **_masked_unit_counts(encoder, options, batch, features, masked, source),
    )
    return records, shards, statistics


def _masked_unit_counts(
    encoder: SentenceEncoder,
    options: BuilderOptions,
    batch: TokenizedDocuments,
    features: dict[str, np.ndarray],
    masked,
    source: np.ndarray,
) -> dict[str, int]:
    """Counts of the masked whole-word units: how many, their characters, and (in text written
    without spaces) how many are exactly one of the segmenter's words."""
    weights = masked.weights > 0
    rows = np.nonzero(weights)[0]
    at = np.zeros(features["input_ids"].shape, dtype=bool)
    at[rows, masked.positions[weights]] = True
    unit_start = features["token_boundary"] > 0 if options.do_whole_word_mask else at
    units = at & unit_start
    word_flag = np.where(source >= 0, batch.unit_words[np.maximum(source, 0)], -1)
    counts = batch.word_counts
    segmented = options.word_segmenter != NO_SEGMENTER
    return {
        "masked_units": int(units.sum()),
        "masked_unit_characters": int(encoder.piece_characters[masked.label_ids[weights]].sum()),
        "masked_units_unspaced": int((units & (word_flag >= 0)).sum()),
        "masked_units_whole_word": int((units & (word_flag == 1)).sum()),
        "unspaced_sentences": counts.get("unspaced_sentences", 0),
        "segmenter_words": counts.get("words", 0) if segmented else 0,
        "segmenter_word_characters": counts.get("word_characters", 0) if segmented else 0,
    }


def batch_documents(
    documents: Iterable[Document], batch_characters: int
) -> Iterator[list[Document]]:
    """Documents (of one file) in batches of about `batch_characters` characters."""
    batch: list[Document] = []
    characters = 0
    for document in documents:
        batch.append(document)
        characters += sum(map(len, document.sentences))
        if characters >= batch_characters:
            yield batch
            batch, characters = [], 0
    if batch:
        yield batch


def no_document_error(paths: list[str]) -> InputError:
    return InputError(f"No document in {paths}: the input holds only blank lines.")


def input_documents(
    options: BuilderOptions, paths: list[str], opener: Opener | None = None
) -> Iterator[tuple[int, Document]]:
    """(index of its file, document) of every document of `paths`, in order."""
    reading = {} if opener is None else {"opener": opener}
    for file_index, path in enumerate(paths):
        documents = read_file_documents(
            [path], options.input_format, options.on_decode_error, **reading
        )
        yield from zip(itertools.repeat(file_index), documents)


def document_batches(
    options: BuilderOptions,
    deduplicator: Deduplicator | None = None,
    opener: Opener | None = None,
) -> Iterator[tuple[BatchKey, list[Document]]]:
    """(batch key, documents) of the input's `options.part`, in order; files are batched
    separately.

    Raises:
        InputError: missing or empty files, bad UTF-8 (strict), or no document at all.
    """
    paths = expand_file_patterns(options.input_file, error_type=InputError)
    documents = held_out_part(
        input_documents(options, paths, opener), options.eval_documents, options.part
    )
    count = 0
    for file_index, keyed in itertools.groupby(documents, key=lambda item: item[0]):
        file_documents: Iterable[Document] = (document for _, document in keyed)
        if deduplicator is not None:
            file_documents = deduplicator.filter(file_documents)
        batches = batch_documents(file_documents, options.batch_characters)
        for batch_index, batch in enumerate(batches):
            count += len(batch)
            yield (file_index, batch_index), batch
    if count == 0:
        raise no_document_error(paths)


def make_deduplicator(options: BuilderOptions) -> Deduplicator | None:
    if not (options.dedup_documents or options.dedup_lines):
        return None
    return Deduplicator(options.dedup_documents, options.dedup_lines)


_worker_encoder: SentenceEncoder | None = None
_worker_options: BuilderOptions | None = None


def _init_worker(options: BuilderOptions) -> None:
    global _worker_encoder, _worker_options
    _worker_options = options
    _worker_encoder = SentenceEncoder(options.spm_model_file, options.do_lower_case, num_threads=1)


def _run_in_worker(task):
    documents, dupe, batch_key = task
    return process_document_batch(_worker_encoder, _worker_options, documents, dupe, batch_key)


def _tasks(
    options: BuilderOptions, dedup_counts: collections.Counter
) -> Iterator[tuple[list[Document], int, BatchKey]]:
    for dupe in range(options.dupe_factor):  # one streaming pass over the input per dupe
        deduplicator = make_deduplicator(options)
        for batch_key, documents in document_batches(options, deduplicator):
            yield documents, dupe, batch_key
        if deduplicator is not None and dupe == 0:  # every pass removes the same
            dedup_counts.update(deduplicator.counts)


def _results(
    options: BuilderOptions, encoder: SentenceEncoder, dedup_counts: collections.Counter
) -> Iterator[tuple]:
    """Batch results in input order; up to 2 * parallelism batches in flight.

    No more workers than batches: an input of one batch (a small corpus, one pass) is
    processed here, without starting worker processes (each imports the builder and loads the
    tokenizer and word segmenter, seconds of CPU for nothing to share).
    """
    tasks = _tasks(options, dedup_counts)
    first = list(itertools.islice(tasks, options.parallelism))
    workers = min(options.parallelism, len(first))
    tasks = itertools.chain(first, tasks)
    if workers <= 1:
        for documents, dupe, batch_key in tasks:
            yield process_document_batch(encoder, options, documents, dupe, batch_key)
        return
    context = multiprocessing.get_context("spawn")  # fork is unsafe once TF threads exist
    with context.Pool(workers, _init_worker, (options,)) as pool:
        pending: collections.deque = collections.deque()
        for task in tasks:
            pending.append(pool.apply_async(_run_in_worker, (task,)))
            if len(pending) >= 2 * workers:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()


class _ShuffleBuffers:
    """A bounded shuffle buffer per shard, in front of the shard writer."""

    def __init__(self, writer: RecordShardWriter, size_per_shard: int, seed: int):
        self.writer = writer
        self.size = max(1, size_per_shard)
        self.buffers: list[list[bytes]] = [[] for _ in writer.paths]
        self.rng = random.Random(seed)

    def add(self, shard: int, record: bytes) -> None:
        buffer = self.buffers[shard]
        if len(buffer) < self.size:
            buffer.append(record)
            return
        slot = self.rng.randrange(self.size)
        self.writer.write(shard, buffer[slot])
        buffer[slot] = record

    def flush(self) -> None:
        for shard, buffer in enumerate(self.buffers):
            self.rng.shuffle(buffer)
            for record in buffer:
                self.writer.write(shard, record)
            buffer.clear()


def previous_output(
    options: BuilderOptions,
    exists: Callable[[str], bool] = os.path.exists,
    glob_fn: Callable[[str], list[str]] = glob.glob,
    join: Callable[[str, str], str] = os.path.join,
) -> list[str]:
    """The shards and manifest already there (the Beam builder passes its filesystems)."""
    existing = [p for p in [*options.shard_paths(), options.manifest_path()] if exists(p)]
    if options.output_dir is not None:
        existing += glob_fn(join(options.output_dir, "part-*.tfrecord"))
    return sorted(set(existing))


def check_output(options: BuilderOptions, **filesystem) -> None:
    """Refuses an existing output unless `overwrite`; `filesystem` as in `previous_output`."""
    existing = previous_output(options, **filesystem)
    if existing and not options.overwrite:
        raise ExistingOutputError(
            f"Output already exists ({existing[0]} ...); pass --overwrite to "
            "replace it or choose another output"
        )


def check_local_output(options: BuilderOptions) -> None:
    """`check_output` for this builder, which writes local files: a remote output (`gs://`...)
    is refused, as it needs the Beam pipeline's file systems."""
    remote = [
        path for path in [options.output_dir, *options.shard_paths()] if path and "://" in path
    ]
    if remote:
        raise UserError(
            "the local builder writes local files only",
            where=remote[0],
            fix="pass --runner=beam (or a Beam runner) to write to remote storage",
        )
    check_output(options)


def _remove_previous_output(options: BuilderOptions) -> None:
    """With overwrite: the old manifest and shards go before the new shards get their names."""
    for path in previous_output(options):
        os.remove(path)


def build_manifest(
    options: BuilderOptions,
    tokenizer_sha256: str,
    vocab_size: int,
    shard_counts: list[int],
    statistics: dict,
    seconds: float,
) -> dict:
    """The manifest.json of a build (both builders)."""
    return {
        "options": dataclasses.asdict(options),
        "word_units": {
            "word_segmenter": load_word_segmenter(options.word_segmenter).description(),
            "rule": UNIT_RULE[options.word_segmenter == NO_SEGMENTER],
        },
        "tokenizer_sha256": tokenizer_sha256,
        "vocab_size": vocab_size,
        "shards": [
            {"path": os.path.basename(p), "instances": c}
            for p, c in zip(options.shard_paths(), shard_counts, strict=True)
        ],
        "statistics": statistics,
        "seconds": seconds,
    }


def held_out_options(options: BuilderOptions, eval_output_dir: str | None) -> BuilderOptions:
    """The build of the documents `options` holds out (its `eval_documents`), into
    `eval_output_dir`: each document once (`dupe_factor` 1: evaluation needs no second mask of
    a text) and in one shard (evaluation reads every record once, in order).

    Raises:
        UserError: no `eval_output_dir`, or the output of `options` itself.
    """
    if not eval_output_dir:
        raise UserError(
            f"--eval_documents={options.eval_documents} needs --eval_output_dir",
            fix="pass the directory for the evaluation records",
        )
    outputs = [options.output_dir] if options.output_dir else options.shard_paths()
    if any(os.path.realpath(eval_output_dir) == os.path.realpath(path) for path in outputs):
        raise UserError(
            "--eval_output_dir is the training output",
            where=eval_output_dir,
            fix="choose another directory for the evaluation records",
        )
    return dataclasses.replace(
        options,
        part="eval",
        output_dir=eval_output_dir,
        output_file=None,
        dupe_factor=1,
        num_output_shards=1,
    )


def no_instance_error(options: BuilderOptions) -> InputError:
    return InputError(
        "no instance could be built (documents too short?)",
        where=options.input_file,
        fix="add longer documents or lower --max_seq_length",
    )


def build_pretraining_data(options: BuilderOptions, progress_seconds: float = 30.0) -> dict:
    """Builds the pretraining TFRecords described by `options`; returns the manifest.

    Holds the output's lock (`albert_tf.output_lock`) throughout. A new `output_dir` is built
    under a temporary name beside it and renamed when complete, so a failed or killed build
    leaves no output directory (an existing one keeps its previous shards and manifest).

    Raises:
        InputError: bad input (message names file and line); nothing is left behind.
        ExistingOutputError: the output exists and `overwrite` is False.
        UserError: a remote output (`gs://`...): the Beam pipeline writes those.
        DiskFullError: a shard could not be written (names it and the space needed).
    """
    check_word_segmenter(options.word_segmenter)  # Before anything is written.
    if options.eval_documents:
        paths = expand_file_patterns(options.input_file, error_type=InputError)
        check_held_out(input_documents(options, paths), options.eval_documents, options.input_file)
    output = options.output_dir or options.shard_paths()[0]
    with output_lock(output, directory=options.output_dir is not None):
        check_local_output(options)
        if options.output_dir is None or os.path.exists(options.output_dir):
            return _build(options, options, progress_seconds)
        with atomic_output_directory(options.output_dir) as temp_dir:
            return _build(
                dataclasses.replace(options, output_dir=temp_dir), options, progress_seconds
            )


def _build(options: BuilderOptions, recorded: BuilderOptions, progress_seconds: float) -> dict:
    """Writes to `options`' paths; the manifest records `recorded` (the user's options)."""
    warning = prediction_budget_warning(
        options.max_seq_length, options.max_predictions_per_seq, options.masked_lm_prob
    )
    if warning:
        logging.warning(warning)
    encoder = SentenceEncoder(options.spm_model_file, options.do_lower_case, num_threads=1)
    paths = options.shard_paths()
    for directory in {os.path.dirname(os.path.abspath(path)) for path in paths}:
        os.makedirs(directory, exist_ok=True)
    statistics = BuildStatistics(options.ngram)
    start = time.monotonic()
    writer = RecordShardWriter(paths)
    with explain_disk_full(recorded.output_dir or paths[0], writer.bytes_needed):
        _write_records(options, encoder, writer, statistics, progress_seconds)
    manifest = build_manifest(
        recorded,
        encoder.model_sha256,
        encoder.vocab_size,
        writer.counts,
        statistics.as_dict(),
        time.monotonic() - start,
    )
    manifest_path = options.manifest_path()
    with open(manifest_path + ".incomplete", "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=2, sort_keys=True)
    os.replace(manifest_path + ".incomplete", manifest_path)
    return manifest


def _write_records(
    options: BuilderOptions,
    encoder: SentenceEncoder,
    writer: RecordShardWriter,
    statistics: BuildStatistics,
    progress_seconds: float,
) -> None:
    """Streams every batch's records into `writer` and commits it (aborts on any error)."""
    dedup_counts: collections.Counter = collections.Counter()
    start = last_report = time.monotonic()
    paths = writer.paths
    try:
        buffers = _ShuffleBuffers(
            writer, options.shuffle_buffer_size // len(paths), options.random_seed
        )
        for records, shards, batch_statistics in _results(options, encoder, dedup_counts):
            for record, shard in zip(records, shards.tolist(), strict=True):
                buffers.add(shard, record)
            statistics.add(batch_statistics)
            if time.monotonic() - last_report > progress_seconds:
                last_report = time.monotonic()
                logging.info(
                    "%d documents, %d instances, %.0f instances/s",
                    statistics.counts["documents"],
                    statistics.counts["instances"],
                    statistics.counts["instances"] / (last_report - start),
                )
        buffers.flush()
        statistics.add(dedup_counts)
        if statistics.counts["instances"] == 0:
            raise no_instance_error(options)
        writer.close()  # A full disk shows here, while the previous output still exists.
        _remove_previous_output(options)
        writer.commit()
    except BaseException:
        writer.abort()
        raise
