"""The Beam pipeline against the local builder: same records, statistics, dedup, errors."""

from __future__ import annotations

import collections
import hashlib
import json
import os
import struct

import numpy as np
import pytest

from albert_tf.data.beam_builder import build_pretraining_data_beam, record_key
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
from albert_tf.data.documents import InputError
from albert_tf.errors import UserError
from albert_tf.tokenization.train import train_sentencepiece

SEQ, PRED, SHARDS = 64, 10, 3
IN_MEMORY = ["--runner=DirectRunner"]
TWO_PROCESSES = [
    "--runner=DirectRunner",
    "--direct_num_workers=2",
    "--direct_running_mode=multi_processing",
]


def _options(corpus: str, model: str, output_dir, **overrides) -> BuilderOptions:
    settings = dict(
        input_file=corpus,
        spm_model_file=model,
        output_dir=str(output_dir),
        max_seq_length=SEQ,
        max_predictions_per_seq=PRED,
        dupe_factor=2,
        num_output_shards=SHARDS,
        batch_characters=3000,  # several batches per file: batch keys matter
    )
    settings.update(overrides)
    return BuilderOptions(**settings)


def _shard_records(path: str) -> list[bytes]:
    """The records of a TFRecord file (framing read by hand: no TensorFlow needed)."""
    data = open(path, "rb").read()
    records, offset = [], 0
    while offset < len(data):
        (length,) = struct.unpack("<Q", data[offset : offset + 8])
        records.append(data[offset + 12 : offset + 12 + length])
        offset += 16 + length
    return records


def _shards(output_dir) -> dict[str, list[bytes]]:
    names = sorted(n for n in os.listdir(output_dir) if n.endswith(".tfrecord"))
    return {name: _shard_records(os.path.join(output_dir, name)) for name in names}


def _multiset(output_dir) -> list[str]:
    """Sorted sha256 of every record of the output: equal lists = equal multisets."""
    records = [r for shard in _shards(output_dir).values() for r in shard]
    return sorted(hashlib.sha256(record).hexdigest() for record in records)


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory, sample_text_path) -> str:
    """Three files of 4 documents each from data/sample.txt; a glob over them."""
    documents = sample_text_path.read_text(encoding="utf-8").split("\n\n")[:12]
    folder = tmp_path_factory.mktemp("beam_corpus")
    for index in range(3):
        part = documents[4 * index : 4 * index + 4]
        (folder / f"part{index}.txt").write_text("\n\n".join(part) + "\n", encoding="utf-8")
    return str(folder / "part*.txt")


@pytest.fixture(scope="module")
def local_and_beam(tmp_path_factory, corpus_files, small_model_file):
    local_dir = tmp_path_factory.mktemp("local")
    beam_dir = tmp_path_factory.mktemp("beam")
    local = build_pretraining_data(_options(corpus_files, small_model_file, local_dir))
    beam = build_pretraining_data_beam(
        _options(corpus_files, small_model_file, beam_dir), IN_MEMORY
    )
    return local_dir, local, beam_dir, beam


def test_beam_output_is_the_local_builders_multiset(local_and_beam):
    local_dir, local, beam_dir, beam = local_and_beam
    hashes = _multiset(beam_dir)
    assert len(hashes) == local["statistics"]["instances"] > 50
    assert hashes == _multiset(local_dir)
    assert beam["statistics"] == local["statistics"]
    assert dict(beam["options"], output_dir=None) == dict(local["options"], output_dir=None)
    assert beam["tokenizer_sha256"] == local["tokenizer_sha256"]
    assert beam["vocab_size"] == local["vocab_size"]
    on_disk = json.loads((beam_dir / "manifest.json").read_text())
    assert on_disk["statistics"] == beam["statistics"]
    assert sorted(os.listdir(beam_dir)) == ["manifest.json"] + [
        f"part-{i:05d}-of-{SHARDS:05d}.tfrecord" for i in range(SHARDS)
    ]
    counts = [len(records) for records in _shards(beam_dir).values()]
    assert counts == [shard["instances"] for shard in beam["shards"]]


def test_beam_shards_are_a_deterministic_global_shuffle(local_and_beam):
    _, _, beam_dir, _ = local_and_beam
    for index, records in enumerate(_shards(beam_dir).values()):
        keys = [record_key(record, 12345) for record in records]  # of the serialized Example
        assert keys == sorted(keys)
        assert all(int.from_bytes(key[:8], "big") % SHARDS == index for key in keys)


def test_other_seed_other_records(local_and_beam, tmp_path, corpus_files, small_model_file):
    _, _, beam_dir, _ = local_and_beam
    options = _options(corpus_files, small_model_file, tmp_path, dupe_factor=1, random_seed=7)
    build_pretraining_data_beam(options, IN_MEMORY)
    assert not set(_multiset(tmp_path)) & set(_multiset(beam_dir))


@pytest.mark.slow  # Over 5 s: Beam with two worker processes.
def test_two_worker_processes_give_the_same_output(
    local_and_beam, tmp_path, corpus_files, small_model_file
):
    _, _, beam_dir, beam = local_and_beam
    options = _options(corpus_files, small_model_file, tmp_path)
    manifest = build_pretraining_data_beam(options, TWO_PROCESSES)
    assert _multiset(tmp_path) == _multiset(beam_dir)
    assert _shards(tmp_path) == _shards(beam_dir)  # byte-identical shards, even
    assert manifest["statistics"] == beam["statistics"]
    assert manifest["beam"]["pipeline_options"] == TWO_PROCESSES


@pytest.fixture(scope="module")
def duplicated_corpus(tmp_path_factory, sample_text_path) -> str:
    """Documents A B A' C D over two files: A' = A, C repeats 2 lines of B, D only old lines."""
    documents = sample_text_path.read_text(encoding="utf-8").strip().split("\n\n")[:3]
    lines = [document.split("\n") for document in documents]
    counts = collections.Counter(line for document in lines for line in document)
    # Sentences that the sample repeats itself (like '"') are left out: only ours repeat.
    a_lines, b_lines, c_lines = ([x for x in doc if counts[x] == 1] for doc in lines)
    a, b = "\n".join(a_lines), "\n".join(b_lines)
    c_with_repeats = "\n".join([b_lines[0], *c_lines, b_lines[1]])
    only_old = "\n".join([a_lines[0], b_lines[2]])
    folder = tmp_path_factory.mktemp("dupes")
    (folder / "one.txt").write_text(f"{a}\n\n{b}\n\n{a}\n", encoding="utf-8")
    (folder / "two.txt").write_text(f"{c_with_repeats}\n\n{only_old}\n\n{a}\n", encoding="utf-8")
    return f"{folder}/one.txt,{folder}/two.txt"


@pytest.mark.slow  # Over 5 s: Beam pipelines.
def test_deduplication_counts_and_records(tmp_path, duplicated_corpus, small_model_file):
    dedup = dict(dedup_documents=True, dedup_lines=True, dupe_factor=1)
    local = build_pretraining_data(
        _options(duplicated_corpus, small_model_file, tmp_path / "local", **dedup)
    )
    beam = build_pretraining_data_beam(
        _options(duplicated_corpus, small_model_file, tmp_path / "beam", **dedup),
        TWO_PROCESSES,
    )
    statistics = beam["statistics"]
    assert statistics["duplicate_documents"] == 2  # the later copies of A
    assert statistics["duplicate_lines"] == 4  # 2 lines of C, both lines of D
    assert statistics["documents_emptied_by_line_dedup"] == 1  # D
    assert statistics["documents"] == 3  # A, B, C without the repeated lines
    assert local["statistics"] == statistics
    assert _multiset(tmp_path / "local") == _multiset(tmp_path / "beam")

    plain = build_pretraining_data_beam(
        _options(duplicated_corpus, small_model_file, tmp_path / "plain", dupe_factor=1),
        IN_MEMORY,
    )
    assert plain["statistics"]["documents"] == 6
    assert "duplicate_documents" not in plain["statistics"]
    lines_only = build_pretraining_data(
        _options(
            duplicated_corpus,
            small_model_file,
            tmp_path / "lines",
            **dict(dedup, dedup_documents=False),
        )
    )
    # Without document dedup, the two copies of A lose all their lines to line dedup.
    assert lines_only["statistics"]["documents_emptied_by_line_dedup"] == 3


@pytest.mark.slow  # Over 5 s: a Beam pipeline per bad input.
def test_bad_input(tmp_path, small_model_file, sample_text_path):
    good = sample_text_path.read_bytes()[:20_000]
    bad = tmp_path / "bad.txt"
    bad.write_bytes(good + b"\n\nbroken \xfe line\n")
    output_dir = tmp_path / "out"
    with pytest.raises(InputError, match=r"bad.txt:\d+: not valid UTF-8"):
        build_pretraining_data_beam(_options(str(bad), small_model_file, output_dir), IN_MEMORY)
    assert os.listdir(output_dir) == []  # no manifest, no temporary shards
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.txt"
    blank.write_bytes(b"\n \n")
    for path, message in [
        (f"{bad},{empty}", "empty.txt: input file is empty"),
        (tmp_path / "no*.txt", "matches no file"),
        (blank, "No document"),
    ]:
        with pytest.raises(InputError, match=message):
            build_pretraining_data_beam(
                _options(str(path), small_model_file, tmp_path / "o2"), IN_MEMORY
            )
        assert os.listdir(tmp_path / "o2") == [] if (tmp_path / "o2").exists() else True
    plain_model = train_sentencepiece(
        [str(sample_text_path)], str(tmp_path / "plain"), vocab_size=300, control_symbols=()
    )
    with pytest.raises(ValueError, match=r"plain\.model: id 2 is .*expected '\[CLS\]'"):
        build_pretraining_data_beam(
            _options(str(sample_text_path), plain_model, tmp_path / "o3"), ["--runner=Nonexistent"]
        )  # raised before the pipeline starts: the bogus runner is never reached


def test_existing_output_is_refused(local_and_beam, corpus_files, small_model_file):
    _, _, beam_dir, _ = local_and_beam
    with pytest.raises(FileExistsError, match="--overwrite"):
        build_pretraining_data_beam(_options(corpus_files, small_model_file, beam_dir), IN_MEMORY)


def test_training_reads_beam_output(local_and_beam):
    from albert_tf.inputs.pretrain_input import pretrain_dataset

    _, _, beam_dir, beam = local_and_beam
    dataset = pretrain_dataset(str(beam_dir / "part-*"), 8, SEQ, PRED, is_training=False)
    batches = list(dataset.as_numpy_iterator())
    assert sum(len(batch["input_ids"]) for batch in batches) == beam["statistics"]["instances"]
    first = batches[0]
    assert first["input_ids"].shape == (8, SEQ)
    assert first["masked_lm_positions"].shape == (8, PRED)
    assert (first["input_ids"][:, 0] == 2).all()
    assert np.isin(first["next_sentence_labels"], [0, 1]).all()


@pytest.mark.slow  # A subprocess with TensorFlow and Beam.
def test_script_runs_beam_with_pipeline_options(tmp_path, corpus_files, small_model_file):
    from tests.data.test_scripts import _run

    common = [
        f"--input_file={corpus_files}",
        f"--spm_model_file={small_model_file}",
        "--max_seq_length=64",
        "--dupe_factor=1",
        "--dedup_lines",
    ]
    beam = _run(
        "data",
        *common,
        f"--output_dir={tmp_path / 'beam'}",
        "--runner=beam",
        # Passed on to Beam (two worker processes: test_two_worker_processes_give_the_same_output).
        "--direct_running_mode=in_memory",
    )
    assert beam.returncode == 0, beam.stderr
    manifest = json.loads((tmp_path / "beam" / "manifest.json").read_text())
    options = manifest["beam"]["pipeline_options"]
    assert options[0] == "--runner=DirectRunner" and "--direct_running_mode=in_memory" in options
    assert manifest["options"]["dedup_lines"] and "duplicate_lines" in manifest["statistics"]
    local = _run("data", *common, f"--output_dir={tmp_path / 'local'}")
    assert local.returncode == 0, local.stderr
    assert _multiset(tmp_path / "beam") == _multiset(tmp_path / "local")
    typo = _run("data", *common, f"--output_dir={tmp_path / 'x'}", "--dupe=2")
    assert typo.returncode == 2 and "error: unknown flags ['--dupe=2']" in typo.stderr


def test_direct_runner_is_the_fn_api_runner_without_a_prism_download():
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner

    from albert_tf.data.beam_builder import _pipeline

    assert isinstance(_pipeline(TWO_PROCESSES).runner, FnApiRunner)
    assert isinstance(_pipeline([]).runner, FnApiRunner)
    assert not isinstance(_pipeline(["--runner=PrismRunner"]).runner, FnApiRunner)


def test_held_out_documents_are_refused(tmp_path, small_model_file, sample_text_path):
    # The last N documents are known only once every file before them is counted.
    options = _options(str(sample_text_path), small_model_file, tmp_path / "out", eval_documents=2)
    with pytest.raises(UserError, match="the Beam builder holds out no documents"):
        build_pretraining_data_beam(options, ["--runner=DirectRunner"])
    assert os.listdir(tmp_path) == []
