"""End-to-end builds: determinism (runs, parallelism), safety, manifest, bad input."""

from __future__ import annotations

import json
import logging
import os

import numpy as np
import pytest
import tensorflow as tf

from albert_tf.data import builder
from albert_tf.data.builder import (
    BuilderOptions,
    build_pretraining_data,
    prediction_budget_warning,
)
from albert_tf.data.documents import InputError
from albert_tf.errors import UserError
from albert_tf.inputs.pretrain_input import pretraining_feature_spec

SEQ, PRED = 64, 10


def _options(corpus, model, output_dir, **overrides) -> BuilderOptions:
    settings = dict(
        input_file=corpus,
        spm_model_file=model,
        output_dir=str(output_dir),
        max_seq_length=SEQ,
        max_predictions_per_seq=PRED,
        dupe_factor=2,
        num_output_shards=3,
        shuffle_buffer_size=50,
    )
    settings.update(overrides)
    return BuilderOptions(**settings)


def _read(output_dir) -> dict[str, np.ndarray]:
    paths = sorted(tf.io.gfile.glob(os.path.join(str(output_dir), "part-*.tfrecord")))
    records = list(tf.data.TFRecordDataset(paths).as_numpy_iterator())
    parsed = tf.io.parse_example(records, pretraining_feature_spec(SEQ, PRED))
    return {name: value.numpy() for name, value in parsed.items()}


def _files(output_dir) -> dict[str, bytes]:
    return {
        name: (output_dir / name).read_bytes()
        for name in sorted(os.listdir(output_dir))
        if name.endswith(".tfrecord")
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory, small_corpus, small_model_file):
    output_dir = tmp_path_factory.mktemp("built")
    manifest = build_pretraining_data(_options(small_corpus, small_model_file, output_dir))
    return output_dir, manifest


def test_output_and_manifest(built):
    output_dir, manifest = built
    names = sorted(os.listdir(output_dir))
    assert names == ["manifest.json"] + [f"part-0000{i}-of-00003.tfrecord" for i in range(3)]
    on_disk = json.loads((output_dir / "manifest.json").read_text())
    assert on_disk["statistics"] == json.loads(json.dumps(manifest["statistics"]))
    assert len(on_disk["tokenizer_sha256"]) == 64
    assert on_disk["options"]["max_seq_length"] == SEQ
    features = _read(output_dir)
    count = len(features["input_ids"])
    assert (
        count
        == manifest["statistics"]["instances"]
        == sum(s["instances"] for s in on_disk["shards"])
    )
    assert (features["input_ids"][:, 0] == 2).all()
    real = features["input_mask"].sum(axis=1)
    assert ((features["input_ids"] == 0) == (features["input_mask"] == 0)).all()
    assert (real <= SEQ).all() and (features["masked_lm_weights"].sum(axis=1) <= PRED).all()
    assert manifest["statistics"]["real_tokens"] == int(real.sum())
    label_share = features["next_sentence_labels"].mean()
    assert abs(label_share - manifest["statistics"]["label_1_share"]) < 1e-9
    assert 0.35 < label_share < 0.65


def test_deterministic_across_runs_and_parallelism(built, tmp_path, small_corpus, small_model_file):
    output_dir, _ = built
    again = tmp_path / "again"
    build_pretraining_data(_options(small_corpus, small_model_file, again, parallelism=2))
    assert _files(again) == _files(output_dir)
    other_seed = tmp_path / "seed"
    build_pretraining_data(_options(small_corpus, small_model_file, other_seed, random_seed=1))
    assert _files(other_seed) != _files(output_dir)


def test_one_batch_starts_no_worker(tmp_path, small_corpus, small_model_file, monkeypatch):
    """A single batch (one pass over a small corpus) is processed in this process: worker
    processes would cost their start-up and gain nothing."""
    one_pass = tmp_path / "one_pass"
    build_pretraining_data(_options(small_corpus, small_model_file, one_pass, dupe_factor=1))
    monkeypatch.setattr(builder.multiprocessing, "get_context", _no_workers)
    again = tmp_path / "again"
    build_pretraining_data(
        _options(small_corpus, small_model_file, again, dupe_factor=1, parallelism=2)
    )
    assert _files(again) == _files(one_pass)


def _no_workers(method):
    raise AssertionError("started worker processes for one batch")


def test_existing_output_is_refused_then_overwritten(
    built, small_corpus, small_model_file, tmp_path
):
    output_dir = tmp_path / "out"
    build_pretraining_data(_options(small_corpus, small_model_file, output_dir, dupe_factor=1))
    before = _files(output_dir)
    with pytest.raises(FileExistsError, match="--overwrite"):
        build_pretraining_data(_options(small_corpus, small_model_file, output_dir))
    assert _files(output_dir) == before
    build_pretraining_data(
        _options(small_corpus, small_model_file, output_dir, num_output_shards=1, overwrite=True)
    )
    assert sorted(os.listdir(output_dir)) == ["manifest.json", "part-00000-of-00001.tfrecord"]


def test_bad_input_leaves_nothing(tmp_path, small_model_file, small_corpus):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(open(small_corpus, "rb").read() + b"\n\nbroken \xfe line\n")
    output_dir = tmp_path / "out"
    with pytest.raises(InputError, match=r"bad.txt:\d+: not valid UTF-8"):
        build_pretraining_data(_options(str(bad), small_model_file, output_dir))
    assert os.listdir(tmp_path) == ["bad.txt"]  # No output directory, no lock, no temp files.
    replaced = build_pretraining_data(
        _options(str(bad), small_model_file, output_dir, on_decode_error="replace")
    )
    assert replaced["statistics"]["instances"] > 0
    for content, error in [(b"", "empty"), (b"\n \n", "No document")]:
        path = tmp_path / "input.txt"
        path.write_bytes(content)
        with pytest.raises(InputError, match=error):
            build_pretraining_data(_options(str(path), small_model_file, tmp_path / "o2"))
        assert not os.path.exists(tmp_path / "o2")
    with pytest.raises(InputError, match="matches no file"):
        build_pretraining_data(
            _options(str(tmp_path / "no*.txt"), small_model_file, tmp_path / "o3")
        )


@pytest.mark.parametrize(
    "output", [dict(output_dir="gs://bucket/records"), dict(output_file="s3://bucket/a.tfrecord")]
)
def test_a_remote_output_is_refused_before_anything_is_written(
    output, tmp_path, small_corpus, small_model_file, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # A path taken as local would land here.
    options = BuilderOptions(input_file=small_corpus, spm_model_file=small_model_file, **output)
    with pytest.raises(UserError, match="local files only.*--runner=beam"):
        build_pretraining_data(options)
    assert os.listdir(tmp_path) == []


def test_one_sentence_documents_and_long_lines(tmp_path, small_model_file):
    corpus = tmp_path / "odd.txt"
    long_line = " ".join(f"word{i}" for i in range(300))
    corpus.write_text(
        f"Just one sentence here .\n\n{long_line}\n\nA b .\nC d .\n", encoding="utf-8"
    )
    manifest = build_pretraining_data(
        _options(str(corpus), small_model_file, tmp_path / "out", dupe_factor=1)
    )
    assert manifest["statistics"]["split_sentences"] == 1
    features = _read(tmp_path / "out")
    assert len(features["input_ids"]) == manifest["statistics"]["instances"] >= 3


def test_output_file_flag_and_budget_warning(tmp_path, small_corpus, small_model_file, caplog):
    paths = f"{tmp_path}/a.tfrecord,{tmp_path}/b.tfrecord"
    options = BuilderOptions(
        input_file=small_corpus,
        spm_model_file=small_model_file,
        output_file=paths,
        max_seq_length=SEQ,
        max_predictions_per_seq=2,
        dupe_factor=1,
    )
    with caplog.at_level(logging.WARNING):
        build_pretraining_data(options)
    assert "max_predictions_per_seq=2 caps masking" in caplog.text
    assert sorted(os.listdir(tmp_path)) == ["a.tfrecord", "a.tfrecord.manifest.json", "b.tfrecord"]
    assert prediction_budget_warning(512, 20, 0.15) is not None
    assert prediction_budget_warning(128, 20, 0.15) is None
