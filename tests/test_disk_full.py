"""A full disk part-way through a write: the previous output stays intact and loadable, and the
error names the path and the space needed (see tests/disk_full.py for how writes are failed)."""

from __future__ import annotations

import hashlib
import os

import keras
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.convert.convert import convert_checkpoint, load_model
from albert_tf.data import records
from albert_tf.data.builder import BuilderOptions, build_pretraining_data
from albert_tf.errors import DiskFullError
from albert_tf.export.saved_model import export_saved_model
from albert_tf.models import AlbertEncoder, AlbertPretrainer
from albert_tf.runtime import Runtime
from tests.conftest import SAMPLE_TEXT, TINY_ALBERT
from tests.disk_full import FailingFile, file_size_limit

# Every tiny-model file written below is larger than this, so each write fails part-way.
LIMIT = 4096


def _tree_digest(root: str) -> dict[str, str]:
    digests = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                digests[os.path.relpath(path, root)] = hashlib.sha256(handle.read()).hexdigest()
    return digests


def _assert_names_path_and_space(error: DiskFullError, path: str) -> None:
    message = str(error)
    assert path in message and "needed" in message and "free" in message, message


@pytest.fixture(scope="module")
def tiny_pretrainer() -> AlbertPretrainer:
    keras.utils.set_random_seed(0)
    return AlbertPretrainer(AlbertEncoder(AlbertConfig(**TINY_ALBERT)))


def test_record_shards_enospc_keeps_previous_shards(tmp_path, tiny_model_file, monkeypatch):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n\n".join(SAMPLE_TEXT.read_text().split("\n\n")[:6]) + "\n")
    output_dir = str(tmp_path / "records")
    options = BuilderOptions(
        input_file=str(corpus),
        spm_model_file=tiny_model_file,
        output_dir=output_dir,
        max_seq_length=32,
        dupe_factor=2,
        num_output_shards=2,
    )
    build_pretraining_data(options)
    before = _tree_digest(output_dir)
    real_open = records._open_for_writing
    monkeypatch.setattr(
        records, "_open_for_writing", lambda path: FailingFile(real_open(path), LIMIT)
    )
    with pytest.raises(DiskFullError) as raised:
        build_pretraining_data(options.__class__(**{**options.__dict__, "overwrite": True}))
    _assert_names_path_and_space(raised.value, output_dir)
    assert _tree_digest(output_dir) == before  # Same shards and manifest, byte for byte.
    assert sorted(os.listdir(tmp_path)) == ["corpus.txt", "records"]


@pytest.mark.slow  # Two SavedModel exports.
def test_export_fails_part_way_previous_export_loads(tmp_path, tiny_pretrainer, tiny_model_file):
    export_dir = str(tmp_path / "export")
    export_saved_model(
        export_dir, tiny_pretrainer, tiny_model_file, seq_length=16, runtime=Runtime.plain()
    )
    before = _tree_digest(export_dir)
    with file_size_limit(LIMIT), pytest.raises(DiskFullError) as raised:
        export_saved_model(
            export_dir,
            tiny_pretrainer,
            tiny_model_file,
            seq_length=16,
            overwrite=True,
            runtime=Runtime.plain(),
        )
    _assert_names_path_and_space(raised.value, export_dir)
    assert _tree_digest(export_dir) == before
    assert sorted(os.listdir(tmp_path)) == ["export"]
    import tensorflow_text  # noqa: F401  (the SavedModel's ops)

    served = tf.saved_model.load(export_dir)
    assert served.signatures["encode_text"](text_a=tf.constant(["ok"]))["pooled_output"].shape[0]


def test_conversion_fails_part_way_previous_output_loads(tmp_path, tiny_pretrainer):
    source = str(tmp_path / "pretrainer.keras")
    tiny_pretrainer.save(source)
    output = str(tmp_path / "hf")
    convert_checkpoint("albert_tf", source, "hf", output)
    before = _tree_digest(output)
    with file_size_limit(LIMIT), pytest.raises(DiskFullError) as raised:
        convert_checkpoint("albert_tf", source, "hf", output, overwrite=True)
    _assert_names_path_and_space(raised.value, output)
    assert _tree_digest(output) == before
    assert sorted(os.listdir(tmp_path)) == ["hf", "pretrainer.keras"]
    assert load_model("hf", output).count_params() == tiny_pretrainer.count_params()
