"""SIGKILL at a random moment of export, conversion, record building and fine-tuning: the
output is complete or absent, never a directory that looks complete (tests/kill_child.py).

Each test kills one child at a random moment of its job (the seed is printed on failure); over
many CI runs the kills cover the whole job. Complete means: it loads (export, conversion), its
shards hold the records its manifest counts (records), its model.keras loads (fine-tuning).
Rerunning a killed fine-tuning job resumes and finishes (its output lock died with it).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys

import keras
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.convert.convert import load_model
from albert_tf.finetune.classification.classification_config import ClassificationConfig
from albert_tf.finetune.classification.classification_task import run_classifier
from albert_tf.models import AlbertEncoder, AlbertPretrainer
from albert_tf.runtime import Runtime
from tests import commands
from tests.conftest import REPO_ROOT, SAMPLE_TEXT, TINY_ALBERT

# Each test starts TensorFlow in a child that runs its job twice.
pytestmark = pytest.mark.slow


def _kill_child(job: str, args: dict, output: str) -> dict:
    seed = random.randrange(1 << 30)
    child = [sys.executable, str(REPO_ROOT / "tests" / "kill_child.py"), job, json.dumps(args)]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = commands.run([*child, output, str(seed)], env=env, timeout=600, preloaded=True)
    assert result.returncode == -signal.SIGKILL, result.stderr[-3000:]
    # The killed job may print (Keras progress) after the timing line.
    timing_line = next(line for line in result.stdout.splitlines() if line.startswith('{"delay"'))
    timing = json.loads(timing_line)
    return {"seed": seed, **timing}


def _visible_entries(directory: str) -> list[str]:
    """What a user (or a glob) sees: hidden temporary names and locks excluded."""
    return sorted(name for name in os.listdir(directory) if not name.startswith("."))


@pytest.fixture(scope="module")
def pretrainer_file(tmp_path_factory) -> str:
    keras.utils.set_random_seed(0)
    path = str(tmp_path_factory.mktemp("kill") / "pretrainer.keras")
    AlbertPretrainer(AlbertEncoder(AlbertConfig(**TINY_ALBERT))).save(path)
    return path


def test_kill_during_export(tmp_path, pretrainer_file, tiny_model_file):
    output = str(tmp_path / "export")
    timing = _kill_child("export", {"pretrainer": pretrainer_file, "spm": tiny_model_file}, output)
    assert _visible_entries(tmp_path) in (["export-timing"], ["export", "export-timing"]), timing
    if os.path.exists(output):
        import tensorflow_text  # noqa: F401  (the SavedModel's ops)

        served = tf.saved_model.load(output)
        assert served.signatures["encode_text"](text_a=tf.constant(["a"]))["pooled_output"].shape
        assert os.path.exists(os.path.join(output, "keras", "encoder.keras")), timing


def test_kill_during_conversion(tmp_path, pretrainer_file):
    output = str(tmp_path / "hf")
    timing = _kill_child("convert", {"pretrainer": pretrainer_file}, output)
    assert _visible_entries(tmp_path) in (["hf-timing"], ["hf", "hf-timing"]), timing
    if os.path.exists(output):
        assert load_model("hf", output).count_params() > 0, timing


def test_kill_during_record_building(tmp_path, tiny_model_file):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n\n".join(SAMPLE_TEXT.read_text().split("\n\n")[:30]) + "\n")
    options = {
        "input_file": str(corpus),
        "spm_model_file": tiny_model_file,
        "max_seq_length": 32,
        "dupe_factor": 3,
        "num_output_shards": 2,
    }
    output = str(tmp_path / "records")
    timing = _kill_child("records", {"options": options}, output)
    assert _visible_entries(tmp_path) in (
        ["corpus.txt", "records-timing"],
        ["corpus.txt", "records", "records-timing"],
    ), timing
    if os.path.exists(output):
        manifest = json.loads(open(os.path.join(output, "manifest.json")).read())
        for shard in manifest["shards"]:
            path = os.path.join(output, shard["path"])
            count = sum(1 for _ in tf.data.TFRecordDataset(path))
            assert count == shard["instances"], timing


def test_kill_during_finetuning_then_resume(tmp_path, tiny_model_file):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    rows = [f"good film {i}\t1" for i in range(8)] + [f"bad film {i}\t0" for i in range(8)]
    (data_dir / "train.tsv").write_text("\n".join(["sentence\tlabel", *rows]) + "\n")
    config_file = tmp_path / "albert_config.json"
    AlbertConfig(**TINY_ALBERT).to_json_file(config_file)
    config = {
        "task": "tsv",
        "data_dir": str(data_dir),
        "text_a_column": "sentence",
        "label_column": "label",
        "albert_config_file": str(config_file),
        "spm_model_file": str(tiny_model_file),
        "max_seq_length": 16,
        "train_batch_size": 4,
        "num_train_epochs": 3.0,
        "do_train": True,
        "do_eval": False,
    }
    output = str(tmp_path / "run")
    timing = _kill_child("finetune", {"config": config}, output)
    model_file = os.path.join(output, "model.keras")
    if os.path.exists(model_file):
        assert keras.saving.load_model(model_file, compile=False).count_params() > 0, timing
    results = run_classifier(
        ClassificationConfig(**config), output, runtime=Runtime.for_machine()
    )  # Resumes; lock is free.
    assert results["train_steps"] > 0 and os.path.exists(model_file), timing
