"""The pretraining-data builder as an Apache Beam pipeline: any runner, same records.

The pipeline runs the local builder's own per-batch processing
(`builder.process_document_batch`: tokenize, pair, mask, serialize) on the same batches, so
there is one implementation of the data algorithm; Beam only distributes it:

    input files ─ read each file as a unit ─> (file, batch in file) batches of documents
      [dedup: documents keyed by (file, document); GroupByKey per document/line hash,
       keep the first occurrence; regroup per file and batch]
    ─ Reshuffle ─> process_document_batch, every dupe pass (spm loaded once per worker)
    ─ records: key = keyed hash of the record, shard = key mod shards; GroupByKey per
      shard, sort by key (a deterministic global shuffle, as TFDS's Beam writer does),
      write `*.beam-<run>.incomplete` through Beam's filesystems
    ─ statistics: a CombineFn over the batches' counts
    ─ finalize (after every shard): rename the shards, write manifest.json last.

Every random draw is seeded from (random_seed, dupe pass, (file index, batch index)), and
batches are formed within one file from its documents alone, so the output holds the same
multiset of records as the local builder's for the same input and options, whatever the
runner, the number of workers or the bundle boundaries (tested). A document never spans two
workers: files are read whole, so pre-shard a big corpus into many files.

Inputs, outputs and the SentencePiece model go through `apache_beam.io.filesystems`, so
`gs://`, `s3://` and `hdfs://` paths work as local ones. Bad input is checked before the
pipeline starts where it can be (patterns, empty files, the tokenizer, existing output);
errors found inside a worker (bad UTF-8, no document) fail the pipeline, name the file and
line, and leave no manifest (the temporary shards are removed).

Illustration (not run: needs a SentencePiece model file):
    options = BuilderOptions(input_file="data/sample.txt", output_dir="/tmp/beam_out",
                             spm_model_file="spm.model", max_seq_length=128)
    manifest = build_pretraining_data_beam(options, ["--runner=DirectRunner"])
    manifest["statistics"]["instances"]  # > 0
"""

from __future__ import annotations

import collections
import hashlib
import itertools
import json
import logging
import os
import re
import tempfile
import time
import typing
import uuid
from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner

from albert_tf.data import deduplication
from albert_tf.data.builder import (
    BuilderOptions,
    BuildStatistics,
    batch_documents,
    build_manifest,
    check_output,
    no_document_error,
    no_instance_error,
    prediction_budget_warning,
    previous_output,
    process_document_batch,
)
from albert_tf.data.documents import InputError, empty_file_error, read_file_documents
from albert_tf.data.sentence_encoder import SentenceEncoder
from albert_tf.data.word_segmenters import check_word_segmenter
from albert_tf.errors import UserError
from albert_tf.file_patterns import expand_file_patterns

_STATISTICS = "statistics"
# Beam logs each string annotation (from __future__ import annotations) it cannot resolve.
logging.getLogger("apache_beam.typehints.native_type_compatibility").setLevel(logging.WARNING)
# Main outputs are key-value pairs; the hint stops Beam from inferring a union with the
# tagged statistics output (which GroupByKey would reject).
_PAIR = typing.Tuple[typing.Any, typing.Any]  # noqa: UP006 (Beam's type hints)


def open_for_reading(path: str):
    """Opens any Beam filesystem path for binary reading (the readers' opener)."""
    return FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)


def _create(path: str):
    return FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED)


def _match(pattern: str) -> list[str]:
    return [metadata.path for metadata in FileSystems.match([pattern])[0].metadata_list]


def local_model_file(path: str) -> str:
    """A local path of the SentencePiece model: remote models are copied to a temp file."""
    if "://" not in path:
        return path
    with open_for_reading(path) as source:
        data = source.read()
    handle, local_path = tempfile.mkstemp(suffix=".model")
    with os.fdopen(handle, "wb") as target:
        target.write(data)
    return local_path


def input_paths(options: BuilderOptions) -> list[str]:
    """The input files, in the local builder's order; missing and empty files raise here."""
    paths = expand_file_patterns(options.input_file, glob_fn=_match, error_type=InputError)
    sizes = {
        metadata.path: metadata.size_in_bytes
        for result in FileSystems.match(paths)
        for metadata in result.metadata_list
    }
    for path in paths:
        if sizes.get(path, 1) == 0:
            raise empty_file_error(path)
    return paths


# The local builder's output checks, on Beam's filesystems.
_FILESYSTEM = dict(exists=FileSystems.exists, glob_fn=_match, join=FileSystems.join)


def record_key(record: bytes, random_seed: int) -> bytes:
    """A serialized Example's place in the global shuffle (keyed hash: the seed matters)."""
    return hashlib.blake2b(record, digest_size=16, key=str(random_seed).encode()).digest()


def _temp_path(path: str, run_id: str) -> str:
    return f"{path}.beam-{run_id}.incomplete"


def _read_batches(file: tuple[int, str], options: BuilderOptions) -> Iterator[tuple]:
    """(batch key, documents) of one file, read whole: the local builder's batches."""
    file_index, path = file
    documents = read_file_documents(
        [path], options.input_format, options.on_decode_error, open_for_reading
    )
    for batch_index, batch in enumerate(batch_documents(documents, options.batch_characters)):
        yield (file_index, batch_index), batch


def _read_keyed_documents(file: tuple[int, str], options: BuilderOptions) -> Iterator[tuple]:
    """((file index, document index), document) of one file, for deduplication."""
    file_index, path = file
    documents = read_file_documents(
        [path], options.input_format, options.on_decode_error, open_for_reading
    )
    for document_index, document in enumerate(documents):
        yield (file_index, document_index), document


def _batch_file(grouped: tuple[int, Iterable], options: BuilderOptions) -> Iterator[tuple]:
    """A file's (deduplicated) documents, back in file order, in the local builder's batches."""
    file_index, keyed = grouped
    documents = (document for _, document in sorted(keyed, key=lambda item: item[0]))
    for batch_index, batch in enumerate(batch_documents(documents, options.batch_characters)):
        yield (file_index, batch_index), batch


def _first_document(grouped: tuple[bytes, Iterable]) -> Iterator:
    """Keeps the first of documents with equal text; counts the others."""
    _, keyed = grouped
    keyed = list(keyed)
    yield min(keyed, key=lambda item: item[0])
    if len(keyed) > 1:
        yield beam.pvalue.TaggedOutput(
            _STATISTICS, {deduplication.DUPLICATE_DOCUMENTS: len(keyed) - 1}
        )


def _line_occurrences(keyed_document: tuple) -> Iterator[tuple[bytes, tuple]]:
    key, document = keyed_document
    for line_index, line in enumerate(document.sentences):
        yield deduplication.line_key(line), (key, line_index)


def _later_occurrences(grouped: tuple[bytes, Iterable]) -> Iterator[tuple]:
    """(document key, line index) of every occurrence of a line but the first."""
    _, occurrences = grouped
    first = min(occurrences)
    for document_key, line_index in occurrences:
        if (document_key, line_index) != first:
            yield document_key, line_index


def _drop_lines(joined: tuple) -> Iterator:
    key, groups = joined
    (document,) = groups["document"]
    drop = set(groups["drop"])
    kept = deduplication.without_lines(document, drop)
    counts = {deduplication.DUPLICATE_LINES: len(drop)}
    if kept is None:
        counts[deduplication.EMPTIED_DOCUMENTS] = 1
    else:
        yield key, kept
    if drop:
        yield beam.pvalue.TaggedOutput(_STATISTICS, counts)


def _kept_and_counted(function) -> beam.PTransform:
    """`beam.FlatMap(function)` of a dedup step: the keyed documents it keeps as the main output
    `kept`, the counts of what it dropped as the `_STATISTICS` output."""
    return beam.FlatMap(function).with_output_types(_PAIR).with_outputs(_STATISTICS, main="kept")


def _deduplicate(documents, options: BuilderOptions) -> tuple:
    """Keyed documents -> (kept keyed documents, [counts]); the `Deduplicator`'s semantics."""
    zero = deduplication.zero_counts(options.dedup_documents, options.dedup_lines)
    counts = [documents.pipeline | "ZeroCounts" >> beam.Create([zero])]
    if options.dedup_documents:
        kept = (
            documents
            | "ByText" >> beam.Map(lambda kv: (deduplication.document_key(kv[1]), kv))
            | "GroupText" >> beam.GroupByKey()
            | "FirstDocument" >> _kept_and_counted(_first_document)
        )
        documents, counts = kept.kept, [*counts, kept[_STATISTICS]]
    if options.dedup_lines:
        drops = (
            documents
            | "Lines" >> beam.FlatMap(_line_occurrences)
            | "GroupLines" >> beam.GroupByKey()
            | "LaterLines" >> beam.FlatMap(_later_occurrences)
        )
        kept = (
            {"document": documents, "drop": drops}
            | "JoinDrops" >> beam.CoGroupByKey()
            | "DropLines" >> _kept_and_counted(_drop_lines)
        )
        documents, counts = kept.kept, [*counts, kept[_STATISTICS]]
    return documents, counts


class _ProcessBatches(beam.DoFn):
    """`process_document_batch` on (batch key, documents), every dupe pass; spm loaded once
    per worker. The dupes of a batch stay in one element: documents cross the runner once."""

    def __init__(self, options: BuilderOptions):
        self.options = options
        self.encoder: SentenceEncoder | None = None
        self.instances = beam.metrics.Metrics.counter("albert_tf", "instances")
        self.batches = beam.metrics.Metrics.counter("albert_tf", "batches")

    def setup(self):
        model = local_model_file(self.options.spm_model_file)
        self.encoder = SentenceEncoder(model, self.options.do_lower_case, num_threads=1)

    def process(self, keyed_batch):
        batch_key, documents = keyed_batch
        for dupe in range(self.options.dupe_factor):
            yield from self._process(documents, dupe, batch_key)

    def _process(self, documents, dupe, batch_key):
        records, _, statistics = process_document_batch(
            self.encoder, self.options, documents, dupe, batch_key
        )
        self.batches.inc()
        self.instances.inc(len(records))
        yield beam.pvalue.TaggedOutput(_STATISTICS, statistics)
        # One element per (batch, shard), not per record: Beam's per-element cost is the
        # runner's main overhead (encoding, data plane), records are small.
        shards = self.options.num_output_shards
        by_shard = collections.defaultdict(list)
        for record in records:  # framed: 12 bytes of length and crc, the Example, 4 of crc
            key = record_key(record[12:-4], self.options.random_seed)
            by_shard[int.from_bytes(key[:8], "big") % shards].append((key, record))
        yield from by_shard.items()


class _SumStatistics(beam.CombineFn):
    """Sums the batches' counts into the manifest's statistics."""

    def __init__(self, ngram: int):
        self.ngram = ngram

    def create_accumulator(self):
        return BuildStatistics(self.ngram)

    def add_input(self, accumulator, statistics):
        accumulator.add(statistics)
        return accumulator

    def merge_accumulators(self, accumulators):
        total = self.create_accumulator()
        for accumulator in accumulators:
            total.merge(accumulator)
        return total

    def extract_output(self, accumulator):
        return accumulator.as_dict()


class _WriteShard(beam.DoFn):
    """Sorts one shard's records by key and writes them, framed, to its temporary file."""

    def __init__(self, temp_paths: list[str]):
        self.temp_paths = temp_paths

    def process(self, grouped):
        shard, batches = grouped
        records = [record for _, record in sorted(itertools.chain.from_iterable(batches))]
        with _create(self.temp_paths[shard]) as handle:
            handle.write(b"".join(records))
        yield shard, len(records)


class _Finalize(beam.DoFn):
    """After every shard: checks the counts, renames the shards, writes the manifest last."""

    def __init__(self, options: BuilderOptions, paths: list[str], manifest_fields: dict):
        self.options = options
        self.paths = paths
        self.manifest_fields = manifest_fields

    def process(self, _, statistics: dict, shard_counts: list[tuple[int, int]]):
        options = self.options
        if statistics.get("documents", 0) == 0:
            raise no_document_error(self.paths)
        if statistics.get("instances", 0) == 0:
            raise no_instance_error(options)
        counts = dict(shard_counts)
        finals = options.shard_paths()
        temps = [_temp_path(path, self.manifest_fields["run_id"]) for path in finals]
        for shard, temp in enumerate(temps):
            if shard not in counts:  # no record hashed here: still an (empty) shard file
                _create(temp).close()
        _remove_previous_output(options)
        FileSystems.rename(temps, finals)
        fields = self.manifest_fields
        manifest = build_manifest(
            options,
            fields["tokenizer_sha256"],
            fields["vocab_size"],
            [counts.get(shard, 0) for shard in range(len(finals))],
            statistics,
            time.time() - fields["start_time"],
        )
        manifest["beam"] = {"pipeline_options": fields["pipeline_args"], "run_id": fields["run_id"]}
        manifest_path = options.manifest_path()
        temp = _temp_path(manifest_path, fields["run_id"])
        with _create(temp) as handle:
            handle.write(json.dumps(manifest, indent=2, sort_keys=True).encode("utf-8"))
        FileSystems.rename([temp], [manifest_path])
        yield manifest_path


def _remove_previous_output(options: BuilderOptions) -> None:
    stale = previous_output(options, **_FILESYSTEM)
    if stale:
        FileSystems.delete(stale)


def _documents_to_batches(files, options: BuilderOptions, counts: list):
    if not (options.dedup_documents or options.dedup_lines):
        return files | "ReadBatches" >> beam.FlatMap(_read_batches, options)
    documents = files | "ReadDocuments" >> beam.FlatMap(_read_keyed_documents, options)
    documents, dedup_counts = _deduplicate(documents, options)
    counts.extend(dedup_counts)
    return (
        documents
        | "ByFile" >> beam.Map(lambda kv: (kv[0][0], kv))
        | "GroupFile" >> beam.GroupByKey()
        | "Batch" >> beam.FlatMap(_batch_file, options)
    )


def add_build(pipeline: beam.Pipeline, options: BuilderOptions, paths: list[str], fields: dict):
    """Adds the whole build to `pipeline` (see the module docstring)."""
    counts: list = []
    files = pipeline | "Files" >> beam.Create(list(enumerate(paths))) | beam.Reshuffle()
    batches = _documents_to_batches(files, options, counts)
    processed = (
        batches
        | "SpreadBatches" >> beam.Reshuffle()
        | "Process"
        >> beam.ParDo(_ProcessBatches(options))
        .with_output_types(_PAIR)
        .with_outputs(_STATISTICS, main="records")
    )
    statistics = (
        [processed[_STATISTICS], *counts]
        | "AllCounts" >> beam.Flatten()
        | "SumCounts" >> beam.CombineGlobally(_SumStatistics(options.ngram))
    )
    temps = [_temp_path(path, fields["run_id"]) for path in options.shard_paths()]
    shard_counts = (
        processed.records
        | "GroupShard" >> beam.GroupByKey()
        | "WriteShard" >> beam.ParDo(_WriteShard(temps))
    )
    _ = (
        pipeline
        | "Once" >> beam.Create([None])
        | "Finalize"
        >> beam.ParDo(
            _Finalize(options, paths, fields),
            beam.pvalue.AsSingleton(statistics),
            beam.pvalue.AsList(shard_counts),
        )
    )


def _remove_temporary_shards(options: BuilderOptions, run_id: str) -> None:
    temps = [_temp_path(path, run_id) for path in [*options.shard_paths(), options.manifest_path()]]
    temps = [path for path in temps if FileSystems.exists(path)]
    if temps:
        FileSystems.delete(temps)


# A worker's exception reaches the driver as text (runner-dependent wrapping).
_WORKER_INPUT_ERROR = re.compile(r"(?:InputError|UserError): (.+)")


def _input_error_from_worker(error: Exception) -> InputError | None:
    match = _WORKER_INPUT_ERROR.search(str(error))
    if isinstance(error, InputError) or match is None:
        return None
    return InputError(match.group(1).strip().split(" [while running")[0])


def _pipeline(pipeline_args: list[str]) -> beam.Pipeline:
    """A pipeline; the DirectRunner means its batch engine, the FnApiRunner, directly.

    Beam 2.77's DirectRunner first tries the Prism runner, downloading its binary from
    GitHub at run time, and falls back to the FnApiRunner without network; the FnApiRunner
    is what honors --direct_num_workers and --direct_running_mode. Name PrismRunner to get
    Prism.
    """
    options = PipelineOptions(list(pipeline_args))
    if options.view_as(StandardOptions).runner in (None, "DirectRunner"):
        return beam.Pipeline(runner=FnApiRunner(), options=options)
    return beam.Pipeline(options=options)


def build_pretraining_data_beam(options: BuilderOptions, pipeline_args: list[str]) -> dict:
    """Builds the pretraining TFRecords of `options` with Beam; returns the manifest.

    Args:
        options: the local builder's options (`parallelism` and `shuffle_buffer_size` are
            not used: the runner decides parallelism, the shuffle is global). Held-out
            documents (`eval_documents`) are refused: which documents are the last N of the
            input is known only once every file before them is counted, and the pipeline
            reads files in parallel.
        pipeline_args: Beam pipeline options, e.g. ["--runner=DirectRunner",
            "--direct_num_workers=2", "--direct_running_mode=multi_processing"].

    Raises:
        InputError: bad input (message names file and line); no manifest is written.
        FileExistsError: the output exists and `overwrite` is False.
        UserError: `eval_documents` set.
    """
    if options.eval_documents:
        raise UserError(
            "the Beam builder holds out no documents",
            fix="build with build_pretraining_data, or give the held-out documents a file of "
            "their own and build it separately",
        )
    check_word_segmenter(options.word_segmenter)
    check_output(options, **_FILESYSTEM)
    paths = input_paths(options)
    warning = prediction_budget_warning(
        options.max_seq_length, options.max_predictions_per_seq, options.masked_lm_prob
    )
    if warning:
        logging.warning(warning)
    encoder = SentenceEncoder(local_model_file(options.spm_model_file), options.do_lower_case)
    if options.output_dir is not None and "://" not in options.output_dir:
        os.makedirs(options.output_dir, exist_ok=True)
    fields = {
        "run_id": uuid.uuid4().hex[:12],
        "start_time": time.time(),
        "tokenizer_sha256": encoder.model_sha256,
        "vocab_size": encoder.vocab_size,
        "pipeline_args": list(pipeline_args),
    }
    try:
        with _pipeline(pipeline_args) as pipeline:
            add_build(pipeline, options, paths, fields)
    except Exception as error:
        _remove_temporary_shards(options, fields["run_id"])
        input_error = _input_error_from_worker(error)
        if input_error is not None:
            raise input_error from error
        raise
    with open_for_reading(options.manifest_path()) as handle:
        return json.loads(handle.read().decode("utf-8"))
