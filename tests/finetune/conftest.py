"""What every task family's tests share: the tiny encoder and tokenizer, a tiny run's
settings, one finished run per family and session, and writing small files.

Each family's conftest (classification/, span_qa/, multiple_choice/, tagging/) adds its data,
its config (its files plus `tiny_run_settings(...)`) and one session fixture that
trains, evaluates, predicts and exports once through `finished_run`; its tests reuse that run
(tests/xdist_groups.py keeps them on one xdist worker). The SentencePiece model is
`tiny_model_file` of tests/conftest.py (300 pieces).
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import pytest

from albert_tf.config import AlbertConfig
from albert_tf.runtime import Runtime
from tests.conftest import TINY_ALBERT


@pytest.fixture(scope="session")
def tiny_config() -> AlbertConfig:
    return AlbertConfig(**TINY_ALBERT)


@pytest.fixture(scope="session")
def tiny_config_file(tmp_path_factory, tiny_config) -> str:
    path = tmp_path_factory.mktemp("config") / "albert_config.json"
    tiny_config.to_json_file(path)
    return str(path)


@pytest.fixture(scope="session")
def tiny_run_settings(tiny_config_file, tiny_model_file) -> Callable[..., dict[str, Any]]:
    """`settings(length, batch, learning_rate, epochs, **more)`: a tiny run's config values
    (a fresh tiny encoder and its tokenizer; train, evaluate and predict)."""

    def settings(max_seq_length, train_batch_size, learning_rate, num_train_epochs, **more):
        return dict(
            albert_config_file=tiny_config_file,
            spm_model_file=tiny_model_file,
            do_train=True,
            do_eval=True,
            do_predict=True,
            max_seq_length=max_seq_length,
            train_batch_size=train_batch_size,
            learning_rate=learning_rate,
            num_train_epochs=num_train_epochs,
            **more,
        )

    return settings


def finished_run(tmp_path_factory, config, name: str) -> tuple[str, dict[str, Any]]:
    """`run_finetuning(config)` in a new directory named after `name`, in this machine's forms
    (`Runtime.for_machine()`, as the commands run): (output_dir, results)."""
    from albert_tf.finetune.driver import run_finetuning

    output_dir = str(tmp_path_factory.mktemp(name))
    return output_dir, run_finetuning(config, output_dir, runtime=Runtime.for_machine())


def onnx_export_of(run: tuple[str, dict], tmp_path_factory, name: str) -> tuple[dict, str]:
    """A finished run's `task.json` and its float32 ONNX export (`export_onnx`)."""
    import json
    import os

    from albert_tf.export.export_source import load_export_source
    from albert_tf.export.onnx.export import export_onnx

    output_dir = run[0]
    with open(os.path.join(output_dir, "task.json"), encoding="utf-8") as handle:
        task = json.load(handle)
    directory = str(tmp_path_factory.mktemp(name) / "onnx")
    return task, export_onnx(directory, load_export_source(output_dir), ["float32"])


def relabelled_run(run_dir: str, directory: str, **task: object) -> str:
    """A copy of the finished run `run_dir` at `directory` whose `task.json` says `task` (e.g.
    labels or a family its model was not trained with)."""
    import json
    import os
    import shutil

    shutil.copytree(run_dir, directory)
    path = os.path.join(directory, "task.json")
    with open(path, encoding="utf-8") as handle:
        values = json.load(handle)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({**values, **task}, handle)
    return directory


def write_lines(path: pathlib.Path | str, lines: list[str]) -> str:
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def distill(teacher_dir: str, output_dir: str, *flags: str) -> dict[str, Any]:
    """`albert-tf distill --teacher=TEACHER` of a 1-layer student, one epoch, exported: its
    results (the printed JSON)."""
    import json
    import os

    from tests import commands
    from tests.commands import command_line
    from tests.conftest import REPO_ROOT

    result = commands.run(
        command_line(
            "distill",
            f"--teacher={teacher_dir}",
            f"--output_dir={output_dir}",
            "--student_layers=1",
            "--num_train_epochs=1",
            "--export_saved_model",
            *flags,
        ),
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout[result.stdout.index("{") :])


def same_task(student_dir: str, teacher_dir: str) -> bool:
    """Whether the student's `task.json` and tokenizer are the teacher's."""
    import pathlib

    student, teacher = pathlib.Path(student_dir), pathlib.Path(teacher_dir)
    return all(
        (student / name).read_bytes() == (teacher / name).read_bytes()
        for name in ("task.json", "spm.model")
    )


@pytest.fixture(scope="session")
def untrained_teacher(tmp_path_factory, tiny_config, tiny_model_file) -> str:
    """An untrained 2-layer SST-2 classifier saved as a finished run (`model.keras`,
    `task.json`, `spm.model`; no `finetune_config.json`: a student passes the data flags)."""
    import json
    import shutil

    from albert_tf.models.classifier import AlbertClassifier
    from albert_tf.models.encoder import AlbertEncoder

    directory = tmp_path_factory.mktemp("teacher")
    AlbertClassifier(AlbertEncoder(tiny_config), 2).save(directory / "model.keras")
    shutil.copy(tiny_model_file, directory / "spm.model")
    task = dict(
        family="classification",
        task="sst-2",
        max_seq_length=16,
        do_lower_case=True,
        problem="classification",
        labels=["0", "1"],
        metrics=["accuracy"],
        is_pair=False,
    )
    (directory / "task.json").write_text(json.dumps(task))
    return str(directory)


@pytest.fixture(scope="session")
def tiny_sst2_dir(tmp_path_factory) -> str:
    """Eight SST-2-shaped training sentences (`train.tsv`, header `sentence<TAB>label`)."""
    directory = tmp_path_factory.mktemp("tiny_sst2")
    rows = [f"good film {i}\t1" for i in range(4)] + [f"bad film {i}\t0" for i in range(4)]
    write_lines(directory / "train.tsv", ["sentence\tlabel", *rows])
    return str(directory)
