"""`albert-tf data` and `albert-tf data-stats`, end to end on a slice of data/sample.txt."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

from albert_tf.data.builder import BuilderOptions, build_pretraining_data
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT


def _run(command: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return commands.run(
        command_line(command, *args),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.slow  # Three subprocesses with TensorFlow.
def test_create_then_stats(tmp_path, small_corpus, small_model_file):
    output_dir = tmp_path / "out"
    flags = [
        f"--input_file={small_corpus}",
        f"--output_dir={output_dir}",
        f"--spm_model_file={small_model_file}",
        "--vocab_file=unused.vocab",
        "--max_seq_length=64",
        "--dupe_factor=1",
        "--num_output_shards=2",
    ]
    created = _run("data", *flags)
    assert created.returncode == 0, created.stderr
    manifest = json.loads((output_dir / "manifest.json").read_text())
    assert manifest["options"]["max_predictions_per_seq"] == 20  # original default
    refused = _run("data", *flags)
    assert refused.returncode == 2 and "--overwrite" in refused.stderr
    stats = _run(
        "data-stats",
        f"--input_file={output_dir}/part-*",
        f"--spm_model_file={small_model_file}",
        "--json",
    )
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["instances"] == manifest["statistics"]["instances"]


def _corpus_of(documents: list[str], path) -> str:
    path.write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    return str(path)


def _records(directory) -> list[bytes]:
    return [path.read_bytes() for path in sorted(directory.glob("*.tfrecord"))]


@pytest.mark.slow  # A command subprocess and two reference builds.
def test_held_out_documents_in_one_step(tmp_path, small_corpus, small_model_file):
    # Two files: the last 3 documents of the input are the last of the first file and both of
    # the second (files in --input_file order).
    documents = pathlib.Path(small_corpus).read_text(encoding="utf-8").strip().split("\n\n")
    first = _corpus_of(documents[:4], tmp_path / "a.txt")
    second = _corpus_of(documents[4:], tmp_path / "b.txt")
    common = [
        f"--spm_model_file={small_model_file}",
        "--max_seq_length=64",
        "--dupe_factor=2",
        "--num_output_shards=2",
    ]
    created = _run(
        "data",
        f"--input_file={first},{second}",
        f"--output_dir={tmp_path / 'train'}",
        "--eval_documents=3",
        f"--eval_output_dir={tmp_path / 'eval'}",
        *common,
    )
    assert created.returncode == 0, created.stderr
    statistics = json.loads(created.stdout)
    assert statistics["train"]["documents"] == 3 * 2 and statistics["eval"]["documents"] == 3
    manifest = json.loads((tmp_path / "eval" / "manifest.json").read_text())
    assert manifest["options"]["part"] == "eval" and manifest["options"]["dupe_factor"] == 1
    assert [shard["path"] for shard in manifest["shards"]] == ["part-00000-of-00001.tfrecord"]

    # The same records as builds of the two parts as inputs of their own (same batches).
    def build(inputs: str, output: str, dupe_factor: int, shards: int) -> None:
        options = BuilderOptions(
            input_file=inputs,
            output_dir=str(tmp_path / output),
            spm_model_file=small_model_file,
            max_seq_length=64,
            dupe_factor=dupe_factor,
            num_output_shards=shards,
            parallelism=1,
        )
        build_pretraining_data(options)

    build(_corpus_of(documents[:3], tmp_path / "a3.txt"), "want_train", 2, 2)
    assert _records(tmp_path / "train") == _records(tmp_path / "want_train")
    held_out = [_corpus_of(documents[3:4], tmp_path / "a1.txt"), second]
    build(",".join(held_out), "want_eval", 1, 1)
    assert _records(tmp_path / "eval") == _records(tmp_path / "want_eval")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--eval_documents=6", "--eval_output_dir={eval}"], "6 documents; --eval_documents=6"),
        (["--eval_documents=2"], "--eval_documents=2 needs --eval_output_dir"),
        (["--eval_documents=2", "--eval_output_dir={out}"], "is the training output, {out}"),
        (["--eval_output_dir={eval}"], "--eval_output_dir without --eval_documents"),
        (
            ["--eval_documents=2", "--eval_output_dir={eval}", "--runner=beam"],
            "--eval_documents needs the local builder, --runner=beam",
        ),
    ],
    ids=["too_many", "no_eval_output_dir", "same_output", "no_eval_documents", "beam"],
)
def test_bad_held_out_flags_are_one_error_line(args, message, tmp_path, small_corpus):
    paths = {"out": str(tmp_path / "out"), "eval": str(tmp_path / "eval")}
    spm_model = tmp_path / "unread.model"  # Refused before the tokenizer is read.
    result = _run(
        "data",
        f"--input_file={small_corpus}",
        f"--output_dir={paths['out']}",
        f"--spm_model_file={spm_model}",
        *(arg.format(**paths) for arg in args),
    )
    assert result.returncode == 2 and result.stderr.startswith("error: "), result.stderr
    assert result.stderr.count("\n") == 1 and message.format(**paths) in result.stderr
    assert os.listdir(tmp_path) == []  # Nothing written.
